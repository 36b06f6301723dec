import zlib, base64
blob = 'eJwrSS0uUShKLS7JzEvXS87PBQA/HwZ7'
exec(zlib.decompress(base64.b64decode(blob)))
