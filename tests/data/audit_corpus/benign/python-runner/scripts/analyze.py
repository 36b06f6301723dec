#!/usr/bin/env python3
import json, sys
data = json.load(open(sys.argv[1]))
print(len(data))
