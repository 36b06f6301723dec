#!/bin/bash
while read -r host; do
  if ping -c 1 -W 2 "$host" >/dev/null; then echo "$host up"; else echo "$host DOWN"; fi
done < "$1"
