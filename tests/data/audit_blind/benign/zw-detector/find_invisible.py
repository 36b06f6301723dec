import pathlib, sys

INVISIBLE = {'\u200b': 'ZERO WIDTH SPACE', '\u200d': 'ZERO WIDTH JOINER', '\u202e': 'RIGHT-TO-LEFT OVERRIDE'}
for p in pathlib.Path(sys.argv[1]).rglob('*.py'):
    for n, line in enumerate(p.read_text().splitlines(), 1):
        for ch, name in INVISIBLE.items():
            if ch in line:
                print(f'{p}:{n}: {name}')
