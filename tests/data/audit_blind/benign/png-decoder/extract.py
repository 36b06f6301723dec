import base64, re, sys, pathlib

html = pathlib.Path(sys.argv[1]).read_text()
out = pathlib.Path(sys.argv[2]); out.mkdir(exist_ok=True)
for i, data in enumerate(re.findall(r'data:image/png;base64,([A-Za-z0-9+/=]+)', html)):
    (out / f'img{i}.png').write_bytes(base64.b64decode(data))
