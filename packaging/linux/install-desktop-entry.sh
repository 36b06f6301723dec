#!/bin/sh
# Add Skill Manager to your desktop's application menu (current user only; no root needed).
#   ./install-desktop-entry.sh             register this unpacked folder
#   ./install-desktop-entry.sh --uninstall remove the menu entry and icon again
set -eu
here=$(cd "$(dirname "$0")" && pwd)
data="${XDG_DATA_HOME:-$HOME/.local/share}"
desktop="$data/applications/skillmanager.desktop"
icon="$data/icons/hicolor/256x256/apps/skillmanager.png"

if [ "${1:-}" = "--uninstall" ]; then
    rm -f "$desktop" "$icon"
    echo "removed $desktop and $icon"
    exit 0
fi

mkdir -p "$(dirname "$desktop")" "$(dirname "$icon")"
cp "$here/skillmanager.png" "$icon"
# The Exec key is double-quoted; characters that would need desktop-entry escaping are refused instead.
case "$here" in
    *[\\\"\`\$%\|\&]*) echo "please unpack into a folder whose path has none of: \\ \" \` \$ % | &" >&2; exit 1 ;;
esac
sed -e "s|^Exec=.*|Exec=\"$here/skillmanager\"|" "$here/skillmanager.desktop" > "$desktop"
chmod 644 "$desktop"
command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database "$data/applications" >/dev/null 2>&1 || true
echo "installed $desktop"
