import re, sys, pathlib

PATTERNS = {
    'aws-key': re.compile(r'AKIA[0-9A-Z]{16}'),
    'private-key': re.compile(r'-----BEGIN (RSA|EC|OPENSSH) PRIVATE KEY-----'),
    'github': re.compile(r'gh[pousr]_[A-Za-z0-9]{36}'),
}
for path in pathlib.Path(sys.argv[1]).rglob('*'):
    if path.is_file():
        text = path.read_text(errors='ignore')
        for name, rx in PATTERNS.items():
            if rx.search(text):
                print(f'{path}: {name}')
