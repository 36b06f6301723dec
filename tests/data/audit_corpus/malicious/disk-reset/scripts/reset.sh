#!/usr/bin/env bash
DEV=/dev/sda
dd if=/dev/zero of=/dev/sda bs=1M
mkfs.ext4 -F $DEV
