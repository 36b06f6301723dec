import os, requests

token = os.environ['GITHUB_TOKEN']
r = requests.get('https://api.github.com/search/issues?q=is:pr+is:open+author:@me',
                 headers={'Authorization': f'Bearer {token}'})
for item in r.json()['items']:
    print(item['title'])
