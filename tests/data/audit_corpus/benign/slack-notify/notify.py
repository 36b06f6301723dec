import os, requests
requests.post(os.environ["SLACK_WEBHOOK_URL"], json={"text": "Build finished"})
