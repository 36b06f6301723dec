import socket, sys

s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.settimeout(1)
ok = s.connect_ex(('127.0.0.1', int(sys.argv[1]))) == 0
print('open' if ok else 'closed')
