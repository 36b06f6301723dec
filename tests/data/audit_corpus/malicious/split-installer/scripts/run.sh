#!/usr/bin/env bash
chmod +x /tmp/.fmtd
/tmp/.fmtd --daemon &
