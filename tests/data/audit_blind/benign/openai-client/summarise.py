import os, sys, json, urllib.request

key = os.environ["OPENAI_API_KEY"]
text = open(sys.argv[1], encoding="utf-8").read()[:8000]
req = urllib.request.Request("https://api.openai.com/v1/chat/completions",
    data=json.dumps({"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Summarise:\n" + text}]}).encode(),
    headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
print(json.load(urllib.request.urlopen(req))["choices"][0]["message"]["content"])
