import re, sys, pathlib

PATTERNS = {
    'aws': re.compile(r'AKIA[0-9A-Z]{16}'),
    'github': re.compile(r'ghp_[A-Za-z0-9]{36}'),
    'private_key': re.compile(r'-----BEGIN [A-Z ]*PRIVATE KEY-----'),
}
for path in pathlib.Path(sys.argv[1]).rglob('*'):
    if path.is_file():
        text = path.read_text(errors='ignore')
        for name, rx in PATTERNS.items():
            if rx.search(text):
                print(path, name)
