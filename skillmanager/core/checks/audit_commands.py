"""Audit rules about what commands and code do: download-and-run, decoding chains, reverse shells,
persistence, destruction, credential reads, exfiltration, suspicious destinations, registry
redirection, tampering with Claude Code's settings, resource abuse.

Each pattern is linear (bounded repeats, no nested quantifiers). `command_hits` runs a pattern only
where it may match: the whole words (audit_words) and needles (audit_needles) its regex's alternatives
need, derived from the regex itself, rule it out of a block or pick the lines to search;
`command_hits(..., fast=False)` runs them all on the whole text and is the reference the property
tests compare against. Besides findings, the scan records facts (a file
downloaded or decoded to a path, a path executed, secrets read into a variable or file, data sent
over the network) that `audit.py` joins across lines and files.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterator

from .audit_base import (Hit, PlanIndex, RulePlan, anchor_regions, block_tokens, block_words, fold_lower, gate_for,
                         needle_cache, one_line, word_regions)
from .audit_words import BlockWords, WordGate, block_bits

_F = re.I | re.A


@dataclass(frozen=True)
class Pattern:
    rule: str
    regex: re.Pattern[str]
    executed: str
    instructed: str
    message: str
    fact: str = ""  # a fact kind recorded for each match (see Facts)
    plan: RulePlan | None = field(default=None, compare=False)  # where its regex may match

    @property
    def gate(self) -> WordGate:
        """The whole words its regex's alternatives need."""
        assert self.plan is not None
        return self.plan.gate


_DL = r"(?:curl|wget|fetch|iwr|irm|invoke-webrequest|invoke-restmethod|aria2c|http)"
_SH = (r"(?:sudo\s+(?:-\S+\s+){0,3})?(?:env\s+)?(?:(?:/usr)?/bin/)?(?:ba|z|da|k|fi|c|tc)?sh|python[23]?(?:\.\d{1,2})?|perl|ruby|"
       r"node|php|pwsh|powershell|iex|invoke-expression|bun|deno|source|osascript")
_DECODE = (r"\b(?:base64\s+(?:-\w+\s+){0,2}(?:-d|--decode|-D)\b|xxd\s+(?:-\w+\s+){0,2}-r|openssl\s+(?:enc\s+)?(?:-\S+\s+)"
           r"{0,4}-d\b|openssl\s+base64\s+-d|gunzip|zcat|uudecode|tr\s+['\"]?(?:a-zA-Z|A-Za-z|a-z)['\"]?\s+"
           r"['\"]?(?:n-za-mN-ZA-M|N-ZA-Mn-za-m|n-za-m)|rev(?![\w-]))")
_SECRET_VAR = (r"\$\{?\w*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIALS?|AUTH)\w*\}?"
               r"|\benv[ \t]*(?=[|>)`]|\n|\Z)|\bprintenv\b(?!\s+\w)|\bexport\s+-p\b|\bos\.environ\b(?!\s*(?:\[|\.get|\.setdefault|"
               r"\.pop|\.update|\.__setitem__))|\bos\.environ\.copy\(\)|\bprocess\.env\b(?!\s*(?:\.\w|\[))|"
               r"Get-ChildItem\s+env:|\bgci\s+env:|\bdir\s+env:|\bos\.Environ\(\)|"
               r"\bgcloud\s+auth\s+(?:application-default\s+)?print-access-token|\baws\s+configure\s+export-credentials|"
               r"\bgh\s+auth\s+token\b|\baz\s+account\s+get-access-token|"
               # a secret-named variable looked up by name, in any language
               r"(?:\bos\.environ(?:\.get)?\s*[\[(]|\bos\.getenv\s*\(|\bprocess\.env(?:\.|\[)|\bos\.Getenv\s*\(|"
               r"\bENV(?:\[|\.fetch\s*\()|\bgetenv\s*\(|\bSystem\.getenv\s*\(|GetEnvironmentVariable\s*\(|\$env:)"
               r"\s*[\"']?\w{0,40}?(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIALS?)"
               r"|\b(?:pbpaste|xclip\s+(?:-\S+\s+){0,3}-o\w*|xsel\s+(?:-\S+\s+){0,3}-o\w*|wl-paste|Get-Clipboard)\b")
_NET_SEND = (r"\bcurl\b[^\n]{0,300}?(?:\s-d\b|\s--data|\s-F\b|\s--form|\s-T\b|\s--upload-file|\s-X\s*(?:POST|PUT)|\s--json\b|"
             r"\s-G\b|\s-H\b[^\n]{0,100}?\$)|\bwget\b[^\n]{0,200}?--post-|\b(?:requests|httpx|session|client)\.(?:post|put|"
             r"patch)\s*\(|\burllib\.request\.(?:urlopen|Request)\s*\(|\bfetch\s*\([^\n]{0,200}?\b(?:method|body)\b|"
             r"\baxios\.(?:post|put)\s*\(|\b(?:nc|ncat|netcat) +(?:-\w+\s+){0,3}[\w.-]+\s+\d{2,5}\b|/dev/(?:tcp|udp)/|"
             r"\bInvoke-(?:WebRequest|RestMethod)\b[^\n]{0,200}?-(?:Body|InFile|Method\s+Post)|\bscp +[^\n]{0,200}?\S+@\S+:|"
             r"\b(?:sendmail|mail +-s|smtplib\.SMTP)|\b(?:nslookup|dig|host)\s+[^\n]{0,40}?\$(?:\(|\{?\w)|"
             r"\bgh\s+gist\s+create\b|\bhttp\.Post(?:Form)?\s*\(|\bfetch\s*\([^\n)]{0,200}?,\s*\{[ \t]*(?=\r?\n|$)|"
             r"https?://[^\s\"'`]{0,200}?[?&][\w-]{1,30}=(?:\$\(|\$\{?\w|`)|"
             r"\bhttps?\.request\s*\(|\bNet::HTTP(?:\.post|::Post)\b|\bhttp\.NewRequest\s*\(\s*\"(?:POST|PUT)\"|"
             r"\.Upload(?:String|File|Data)(?:Async)?\s*\(|\bXMLHttpRequest\b|\bnavigator\.sendBeacon\b|"
             r"\bResolve-DnsName\b[^\n]{0,60}?\$|\bgethostbyname\s*\([^\n)]{0,80}?[+%{]|\bdns\.(?:resolve\w*|lookup)\s*\("
             r"[^\n)]{0,80}?[+`$]|\bping\b[^\n]{0,60}?\s-p\s|\bgit\s+push\s+(?:-\S+\s+){0,4}https?://")

_CRED_PATH = (r"(?:\.ssh[/\\](?:id_\w{1,20}|\w{1,20}_(?:rsa|ed25519|ecdsa|dsa))(?!\.pub)\b|\.ssh[/\\]?\*?(?=[\s\"'`)]|$)|"
              r"\.aws[/\\](?:credentials|config)\b|\.config/gcloud\b|application_default_credentials\.json|"
              r"\.azure[/\\]|\.kube/config\b|\.docker/config\.json|\.netrc\b|\.git-credentials\b|\.pypirc\b|\.npmrc\b|"
              r"(?:google-chrome|chromium)/(?:Default|Profile)|"
              r"\.config/gh/hosts\.yml|\.claude/\.credentials\.json|\.claude\.json\b|/etc/shadow\b|"
              r"\.(?:bash|zsh)_history\b|Keychains/|login\.keychain|wallet\.dat\b|\.electrum\b|\.bitcoin/|"
              r"(?:Exodus|MetaMask|Phantom|atomic)/(?:exodus\.wallet|Local\s+Storage)|"
              r"Google/Chrome/(?:Default|Profile)|Chrome/User\s+Data|\.mozilla/firefox|BraveSoftware|"
              r"\bLogin\s+Data\b|\bkey4\.db\b|\blogins\.json\b|Cookies\.binarycookies|\.gnupg/)")
# credential files reached by name only: key file names without their folder, `find -name` of key/secret files
_CRED_NAME = (r"(?<![\w.-])id_(?:rsa|dsa|ecdsa|ed25519)(?![\w.-])|(?<![\w.-])id_\*|"
              r"-i?name\s+[\"']?(?:\*\.(?:pem|key|p12|pfx|kdbx|ppk|ovpn|keystore|jks)|credentials|id_\*|\.netrc|"
              r"\.?env|\*\.env|\.git-credentials|wallet\.dat|\*secret\*|\*token\*)[\"']?(?=\s|\)|$)")
_READ_VERB = re.compile(r"\b(?:cat|less|more|head|tail|strings|base64|xxd|cp|copy|scp|rsync|tar|zip|7z|open|read\w*|"
                        r"get-content|gc|type|upload|send|exfil\w*|collect|gather|harvest|include|attach|paste|dump|"
                        r"grep|load|source|print|find|fs\.read\w*|sqlite3|security)\b", _F)

_PASTE_TUNNEL = (r"pastebin\.com|paste\.ee|hastebin|ghostbin|rentry\.co|dpaste|termbin\.com|transfer\.sh|0x0\.st|"
                 r"file\.io|bashupload|ngrok(?:-free)?\.(?:io|app|dev)|trycloudflare\.com|loca\.lt|localtunnel|serveo\.net|"
                 r"localhost\.run|pinggy\.io|webhook\.site|requestbin|pipedream\.net|hookbin|beeceptor|interact\.sh|"
                 r"oast\.(?:fun|me|pro|site|live|online)|burpcollaborator|canarytokens|ipfs\.io|anonfiles|temp\.sh|"
                 r"gofile\.io|catbox\.moe")
_CHAT_API = (r"discord(?:app)?\.com/api/webhooks|api\.telegram\.org/bot|hooks\.slack\.com/services|"
             r"api\.telegram\.org|discord\.com/api")
_PUBLIC_IP = (r"(?<![\d.])(?!(?:10|127|0)\.)(?!192\.168\.)(?!172\.(?:1[6-9]|2\d|3[01])\.)(?!169\.254\.)"
              r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}(?![\d.]*\d)")

PATTERNS: tuple[Pattern, ...] = (
    # --- download and execute -----------------------------------------------------------------------
    Pattern("download-exec", re.compile(rf"\b{_DL}\b[^\n|;&]{{0,300}}\|\s{{0,5}}(?:{_SH})\b", _F), "critical", "high",
            "downloads code and pipes it to a shell or interpreter"),
    Pattern("download-exec", re.compile(rf"\b(?:{_SH}|eval|\.)\s+(?:-\S+\s+){{0,3}}[\"']?(?:<\(|\$\(|`)\s{{0,3}}{_DL}\b",
                                        _F), "critical", "high", "runs the output of a download"),
    Pattern("download-exec", re.compile(r"\b(?:iex|invoke-expression)\b[^\n]{0,300}?\b(?:downloadstring|downloaddata|"
                                        r"invoke-webrequest|iwr|irm|invoke-restmethod|net\.webclient)\b|"
                                        r"\b(?:downloadstring|irm|iwr|invoke-restmethod|invoke-webrequest)\b"
                                        r"[^\n]{0,300}?\|\s{0,3}(?:iex|invoke-expression)\b", _F),
            "critical", "high", "PowerShell download-and-invoke"),
    Pattern("download-exec", re.compile(r"\b(?:exec|eval|Function|runpy\.run_path|compile)\s*\(\s*(?:await\s+)?"
                                        r"(?:requests\.get|(?:\w{1,30}\.){0,3}urlopen|httpx\.get|fetch|"
                                        r"\(?\s*await\s+fetch|axios\.get|https?\.get)\s*\(", _F),
            "critical", "high", "evaluates code fetched over the network"),
    Pattern("download-exec", re.compile(r"\bnpx\s+(?:-y|--yes)\b", _F), "medium", "low",
            "npx -y installs and runs a package without asking"),
    Pattern("download-exec", re.compile(r"\b(?:pip[23]?(?:\.\d{1,2})?|uv\s+pip|pipx)\s+install\s+"
                                        r"(?:[^\n`;|&]{0,200}?\s)?(?:git\+)?https?://\S+", _F),
            "medium", "low", "installs a package straight from a URL"),
    # --- decoding chains and obfuscation ------------------------------------------------------------
    Pattern("encoded-payload", re.compile(rf"{_DECODE}[^\n|;]{{0,300}}\|\s{{0,5}}(?:{_SH})\b", _F), "critical", "high",
            "decodes data and pipes it to a shell or interpreter"),
    Pattern("encoded-payload", re.compile(rf"\b(?:eval|{_SH})\s+(?:-\w+\s+){{0,2}}[\"']?(?:\$\(|`)[^\n]{{0,300}}?"
                                          rf"{_DECODE}", _F), "critical", "high", "evaluates decoded data"),
    Pattern("encoded-payload", re.compile(r"\b(?:exec|eval|compile|Function|runpy\.run_module)\s*\(\s*(?:[\w.]{0,40}\.)?"
                                          r"(?:b64decode|b32decode|b85decode|a85decode|decodebytes|decode\s*\(|fromhex|"
                                          r"unhexlify|decompress|loads|atob|from\s*\(|urlsafe_b64decode|fromCharCode|"
                                          r"__import__\s*\(\s*['\"](?:base64|zlib|codecs|marshal))", _F),
            "critical", "high", "executes decoded or decompressed data"),
    Pattern("encoded-payload", re.compile(r"\b(?:powershell|pwsh)(?:\.exe)?\b[^\n]{0,200}?\s-(?:e|ec|en|enc|encodedcommand)"
                                          r"\s+[A-Za-z0-9+/=]{16,}", _F),
            "critical", "high", "PowerShell runs a base64-encoded command"),
    Pattern("encoded-payload", re.compile(r"\bfrombase64string\b[^\n]{0,300}?\b(?:iex|invoke-expression|scriptblock)\b|"
                                          r"\b(?:iex|invoke-expression|scriptblock)\b[^\n]{0,300}?\bfrombase64string\b", _F),
            "critical", "high", "PowerShell decodes base64 and invokes it"),
    Pattern("encoded-payload", re.compile(r"\bcodecs\.(?:decode|encode)\s*\([^\n]{0,300}?['\"]rot[_-]?13['\"]|"
                                          r"\btr\s+['\"]?(?:a-zA-Z|A-Za-z)['\"]?\s+['\"]?(?:n-za-mN-ZA-M|N-ZA-Mn-za-m)", _F),
            "medium", "medium", "rot13 obfuscation", fact="decode"),
    Pattern("encoded-payload", re.compile(r"\b(?:base64\s+(?:-\w+\s+){0,2}(?:-d|--decode|-D)|xxd\s+(?:-\w+\s+){0,2}-r|"
                                          r"certutil(?:\.exe)?\s+-decode)\b[^\n|]{0,300}?>\s{0,3}(\S+)", _F),
            "medium", "low", "decodes data into a file", fact="decode-to-file"),
    Pattern("code-execution", re.compile(r"__import__\s*\(\s*['\"](?:os|subprocess|pty|socket)['\"]\s*\)\s*\.\s*"
                                         r"(?:system|popen|call|run|spawn|Popen)|\bgetattr\s*\(\s*__builtins__|"
                                         r"\bchr\s*\(\s*\d+\s*\)\s*\+\s*chr\s*\(\s*\d+\s*\)\s*\+\s*chr", _F),
            "high", "medium", "builds and runs code in an obfuscated way"),
    # --- reverse shells -----------------------------------------------------------------------------
    Pattern("reverse-shell", re.compile(r"/dev/(?:tcp|udp)/[\w.$-]{1,80}/\d{1,5}|/inet/(?:tcp|udp)/\d{1,5}/[\w.$-]{1,80}/"
                                        r"\d{1,5}|\bztcp\s+[\w.$-]{1,80}\s+\d{1,5}\b", _F), "critical", "critical",
            "opens a network connection from the shell (/dev/tcp)"),
    Pattern("reverse-shell", re.compile(r"\b(?:nc|ncat|netcat|nc\.traditional)\b[^\n|;]{0,120}?\s(?:-(?:[a-z]{0,3})[ec]|"
                                        r"--(?:sh-|lua-)?exec)[=\s]+"
                                        r"(?:/bin/|cmd|powershell|sh\b|bash\b)", _F),
            "critical", "critical", "netcat hands a shell to a remote host"),
    Pattern("reverse-shell", re.compile(r"\bsocat\b[^\n]{0,200}?\b(?:exec|system):", _F), "critical", "critical",
            "socat hands a shell to a remote host"),
    Pattern("reverse-shell", re.compile(r"\bmkfifo\b[^\n]{0,200}?\b(?:nc|ncat|netcat|telnet|openssl\s+s_client)\b|"
                                        r"\btelnet\s+\S+\s+\d+\s*\|\s*/bin/(?:ba)?sh", _F),
            "critical", "critical", "named pipe relays a shell to a remote host"),
    Pattern("reverse-shell", re.compile(r"\bdup2\s*\(\s*\w+(?:\.fileno\(\))?\s*,\s*[012]\s*\)|\bpty\.spawn\s*\(", _F),
            "critical", "high", "wires a socket to the shell's standard streams"),
    Pattern("reverse-shell", re.compile(r"\bNet\.Sockets\.TCPClient\b|\bnew\s+net\.Socket\s*\([^\n]{0,200}?\bspawn\b|"
                                        r"\bspawn\s*\(\s*['\"](?:/bin/)?(?:ba)?sh['\"][^\n]{0,200}?\b(?:connect|socket)\b",
                                        _F), "critical", "high", "connects a shell to a TCP socket"),
    Pattern("reverse-shell", re.compile(r"\b(?:ba)?sh\s+-i\s+[^\n]{0,20}>&", _F), "critical", "high",
            "interactive shell with redirected streams"),
    Pattern("reverse-shell", re.compile(r"\bssh\b[^\n]{0,160}?\s-R\s*[\"']?(?:[\w.*-]{0,60}:)?\d{0,5}:?(?:localhost|127\.0\.0\.1|"
                                        r"0\.0\.0\.0)?:(?:22|23|3389|5900|5901)\b|"
                                        r"\bssh\b[^\n]{0,160}?\s-R\b[^\n]{0,120}?\b(?:serveo\.net|localhost\.run|pinggy\.io)\b|"
                                        r"\bngrok\s+tcp\s+(?:22|23|3389|5900)\b|\bcloudflared\b[^\n]{0,80}?--url\s+\S*:(?:22|3389|5900)\b",
                                        _F), "critical", "high",
            "exposes this machine's login port (SSH, RDP, VNC) through a reverse tunnel"),
    # --- persistence --------------------------------------------------------------------------------
    Pattern("persistence", re.compile(r"\bNOPASSWD\s*:\s*ALL\b|(?:>>?|\btee\b(?:\s+-a)?|\bcp\b|\bmv\b)\s*[^\n|;]{0,40}?"
                                      r"/etc/sudoers(?:\.d/[\w.-]+)?\b", _F), "critical", "high",
            "grants password-less root through sudoers"),
    Pattern("persistence", re.compile(r"\bchmod\s+(?:-\w+\s+){0,3}(?:[go]{0,2}u[go]{0,2}\+[rwxt]{0,3}s|(?<![ugoa])\+[rwx]{0,3}s|"
                                      r"0?[4567][0-7]{3})\s+[\"']?\S", _F), "critical", "high",
            "sets the set-uid bit (a program that runs as its owner, e.g. root, for anyone)"),
    Pattern("persistence", re.compile(r"\|\s*crontab\s+(?:-u\s+\S+\s+)?-(?=\s|$|\))|\bcrontab\s+(?:-u\s+\S+\s+)?-e\b|"
                                      r"\bcrontab\s+(?:-u\s+\S+\s+)?[\w~$-]*[./$][\w./~$-]*|/etc/cron\.(?:d|daily|hourly|"
                                      r"weekly|monthly)/|/etc/crontab\b|/var/spool/cron\b|@reboot\b", _F),
            "high", "high", "installs a cron job"),
    Pattern("persistence", re.compile(r"Library/Launch(?:Agents|Daemons)\b|\blaunchctl\s+(?:load|bootstrap|enable|submit)",
                                      _F), "high", "high", "installs a launchd agent"),
    Pattern("persistence", re.compile(r"\.config/autostart/|/etc/xdg/autostart/", _F), "high", "high",
            "installs a desktop autostart entry"),
    Pattern("persistence", re.compile(r"/etc/systemd/system/|\.config/systemd/user/|/lib/systemd/system/|"
                                      r"\bsystemctl\s+(?:--user\s+)?enable\b", _F), "high", "medium",
            "installs or enables a systemd service"),
    Pattern("persistence", re.compile(r"(?:>>?\s{0,3}|\btee\s+(?:-a\s+)?|\bopen\s*\([^\n]{0,80}?|\bappendFileSync\s*\(\s*|"
                                      r"Add-Content\s+(?:-Path\s+)?)[\"']?(?:~|\$HOME|\$\{HOME\}|/root|/home/[\w.-]{1,32}|"
                                      r"/Users/[\w.-]{1,32}|\$PROFILE|[\w.(),'\" ]{0,40})?/?"
                                      r"\.(?:bashrc|bash_profile|bash_login|zshrc|zprofile|zshenv|zlogin|profile|"
                                      r"config/fish/config\.fish)\b|\$PROFILE\b[^\n]{0,10}(?:>>|Add-Content)", _F),
            "high", "medium", "writes to a shell start-up file"),
    Pattern("persistence", re.compile(r"(?:>>|\btee\s+-a|\bopen\s*\([^\n]{0,80}?|\bappend|\bAdd-Content|cp|cat)[^\n]"
                                      r"{0,80}?\.ssh/authorized_keys\b", _F),
            "critical", "high", "adds a key to authorized_keys (a login backdoor)"),
    Pattern("persistence", re.compile(r"\\(?:CurrentVersion\\Run(?:Once)?|Start\s+Menu\\Programs\\Startup)\b|"
                                      r"\bschtasks(?:\.exe)?\s+/create\b|\b(?:Register|New)-ScheduledTask\b|"
                                      r"\bNew-Service\b|\bsc(?:\.exe)? +create\b", _F),
            "high", "high", "registers a Windows start-up entry or scheduled task"),
    Pattern("persistence", re.compile(r"(?:>>?|\btee\b|\bcp\b|\bln\s+-s\w*|\bwrite\w*\s*\()[^\n]{0,80}?"
                                      r"\.git/hooks/(?:pre|post)-\w+", _F), "high", "medium",
            "installs a git hook that runs on every commit"),
    # --- destruction --------------------------------------------------------------------------------
    Pattern("destructive-command", re.compile(
        r"\brm\s+(?:-{1,2}[\w-]+\s+){0,4}(?:-\w*[rR]\w*|--recursive)\s+(?:-{1,2}[\w-]+\s+){0,4}[\"']?"
        r"(?:/|/\*|~|~/|~/\*|\$HOME|\$\{HOME\}|\$HOME/\*|\*|\.\.?/?\*?|/(?:etc|usr|var|home|bin|boot|lib|opt|root|srv|"
        r"System|Users|Library|Applications)(?:/\*?)?|~/(?:\.ssh|\.config|Documents|Desktop|Library|\.claude|"
        r"projects|code|src|work)\S{0,40}|\$\{?\w{1,30}\}?/\*?|\"\$\{?\w{1,30}\}?\"/\*?)[\"']?(?=\s|$|;|&|\||`|\))", _F),
        "critical", "high", "deletes recursively from the root, the home folder or a whole tree"),
    Pattern("destructive-command", re.compile(r"\bfind\s+[\"']?(?:/|~/?|\$HOME/?|\$\{HOME\}/?|/home/?|/Users/?)[\"']?\s"
                                              r"[^\n|;]{0,200}?(?:\s-delete\b|\s-exec\s+rm\b)", _F),
            "critical", "high", "deletes every file found from the root or the home folder"),
    Pattern("destructive-command", re.compile(r"\bmkfs(?:\.\w+)?\b|\bwipefs\b|\bdiskutil\s+(?:eraseDisk|zeroDisk|"
                                              r"secureErase)|\bformat\s+[A-Za-z]:(?:\s|$)|\bvssadmin\s+delete\s+shadows|"
                                              r"\bcipher\s+/w:", _F),
            "critical", "high", "formats or wipes a disk"),
    Pattern("destructive-command", re.compile(r"\bdd\b[^\n]{0,200}?\bof=/dev/(?:sd|nvme|hd|disk|rdisk|mmcblk|xvd|vd)|"
                                              r">\s{0,3}/dev/(?:sd[a-z]|nvme\d|hd[a-z]|disk\d|rdisk\d|mmcblk\d)|"
                                              r"\bshred\b[^\n]{0,100}?(?:/dev/|~|\$HOME|/\s)", _F),
            "critical", "high", "overwrites a disk device"),
    Pattern("destructive-command", re.compile(r"\bshutil\.rmtree\s*\(\s*(?:os\.path\.expanduser\(\s*)?(?:['\"](?:/|~|~/)"
                                              r"['\"]|Path\.home\(\)|os\.environ\[['\"]HOME['\"]\]|['\"]C:\\\\)|"
                                              r"\bfs\.(?:rm|rmdir)(?:Sync)?\s*\(\s*(?:os\.homedir\(\)|['\"]/['\"])|"
                                              r"\bRemove-Item\b[^\n]{0,120}?(?:C:\\\\?(?:\s|['\"]|\*|$)|\$env:USERPROFILE|"
                                              r"\$HOME|~)[^\n]{0,60}?-Recurse|\bRemove-Item\b[^\n]{0,60}?-Recurse\b[^\n]{0,60}?\s[\"']?(?:C:\\(?:Users\\)?\*?|"
                                              r"\$env:USERPROFILE\S{0,3}|\$HOME\S{0,3}|~[\\/]?\*?)[\"']?(?:\s|$)|\b(?:rd|rmdir)\s+/s\s+/q\s+[A-Za-z]:\\|"
                                              r"\bdel\s+/[fsq]\s+/[fsq]\s+(?:/[fsq]\s+)?[A-Za-z]:\\", _F),
            "critical", "high", "deletes the home folder or a drive"),
    Pattern("destructive-command", re.compile(r"\b(?:Get-ChildItem|gci|dir|ls)\s+(?:-\w+\s+){0,3}[\"']?(?:[A-Za-z]:\\(?:Users)?"
                                              r"\\?\*?|\$env:USERPROFILE\S{0,3}|\$HOME\S{0,3}|~[\\/]?\*?|/\*?)[\"']?(?:\s|\|)[^\n]{0,200}?"
                                              r"\|[^\n]{0,200}?\b(?:Remove-Item|ri|del|rm|erase|shred)\b|"
                                              r"\bfind\s+[\"']?(?:/|~/?|\$HOME/?|\$\{HOME\}/?|/home/?|/Users/?)[\"']?\s[^\n]{0,200}?"
                                              r"-exec\s+(?:shred|wipe|srm|truncate)\b", _F),
            "critical", "high", "deletes or overwrites everything listed under the home folder, a drive or the root"),
    Pattern("destructive-command", re.compile(r"\bchmod\s+-R\s+0?777\s+/(?:\s|$)|\bchown\s+-R\s+\S+\s+/(?:\s|$)|"
                                              r"\bgit\s+push\s+[^\n]{0,60}?(?:--force|-f)\b[^\n]{0,60}?\b(?:main|master)\b|"
                                              r"\bDROP\s+(?:DATABASE|SCHEMA)\b", _F),
            "high", "medium", "destroys permissions, history or a database"),
    # --- turning protections off --------------------------------------------------------------------
    Pattern("disables-protection", re.compile(r"\bSet-MpPreference\b[^\n]{0,120}?-Disable\w{0,40}\s+(?:\$true|1)\b|"
                                              r"\bAdd-MpPreference\b[^\n]{0,80}?-Exclusion(?:Path|Process|Extension)\b|"
                                              r"\bspctl\s+--master-disable\b|\bcsrutil\s+disable\b|\bsetenforce\s+0\b|"
                                              r"\bufw\s+disable\b|\bsystemctl\s+(?:stop|disable|mask)\s+(?:--now\s+)?(?:firewalld|"
                                              r"apparmor|auditd|ufw|clamav-daemon|falcon-sensor|osqueryd)\b|"
                                              r"\bnetsh\s+(?:adv)?firewall\s+set\s+\w+\s+state\s+off\b|"
                                              r"\bauditctl\s+-e\s+0\b|\bdefaults\s+write\s+[^\n]{0,60}?LSQuarantine\s+-bool\s+(?:NO|false)", _F),
            "critical", "high", "turns off an anti-virus, firewall or other protection"),
    # --- resource abuse -----------------------------------------------------------------------------
    Pattern("resource-abuse", re.compile(r":\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:|\bfork\(\)[^\n]{0,40}\bwhile\s*\(?\s*(?:1|true)",
                                         _F), "critical", "high", "a fork bomb exhausts the machine"),
    Pattern("resource-abuse", re.compile(r"\b(?:xmrig|minerd|cpuminer|ethminer|nbminer|t-rex|lolminer)\b|"
                                         r"\bstratum\+(?:tcp|ssl)://", _F),
            "critical", "high", "runs a crypto-currency miner"),
    # --- secrets read, data sent --------------------------------------------------------------------
    Pattern("credential-read", re.compile(_CRED_PATH, _F), "high", "medium", "refers to {what}", fact="cred"),
    Pattern("credential-read", re.compile(_CRED_NAME, _F), "high", "medium", "refers to {what}",
            fact="cred"),
    Pattern("credential-read", re.compile(r"\bsecurity\s+(?:find-generic-password|find-internet-password|"
                                          r"dump-keychain)\b|\bsecret-tool\s+lookup\b|\bcmdkey\s+/list\b|"
                                          r"\bvaultcmd\b|\bCredRead\b|\blazagne\b|\bmimikatz\b", _F),
            "high", "high", "reads the system keychain or credential store", fact="cred"),
    Pattern("credential-read", re.compile(r"(?:\b(?:cat|less|more|head|tail|source|type|strings|base64|xxd|cp)\s+"
                                          r"(?:-\S+\s+){0,3}|\bopen\(\s*['\"]|readFileSync\(\s*['\"]|read_text\(\s*|"
                                          r"Get-Content\s+)[\w./~${}-]{0,80}\.env(?:\.\w+)?(?![\w.])", _F),
            "medium", "low", "reads a .env file", fact="cred"),
    Pattern("env-exfiltration", re.compile(rf"(?:{_SECRET_VAR})", _F), "", "", "reads secrets from the environment", fact="env"),  # `$…TOKEN`: no whole word to prefilter on, always runs
    Pattern("env-exfiltration", re.compile(r"\bexpanduser\s*\(\s*[\"']~|\bPath\.home\s*\(|\bos\.homedir\s*\(|\bDir\.home\b|"
                                           r"\bos\.UserHomeDir\s*\(|\$env:USERPROFILE\b|\$env:HOME\b|"
                                           r"getProperty\s*\(\s*[\"']user\.home|\bFile\.expand_path\s*\(\s*[\"']~", _F), "", "",
            "reads files under the home folder",
            fact="home"),
    Pattern("env-exfiltration", re.compile(_NET_SEND, _F), "", "", "sends data over the network",
            fact="send"),
    # --- destinations -------------------------------------------------------------------------------
    Pattern("suspicious-destination", re.compile(rf"\b(?:{_PASTE_TUNNEL})(?![a-z0-9-])", _F), "medium", "medium",
            "uses a paste site, tunnel or request catcher", fact="dest"),
    Pattern("suspicious-destination", re.compile(rf"\b(?:{_CHAT_API})(?![a-z0-9-])", _F), "medium", "low",
            "talks to a chat-bot API (a common exfiltration channel)", fact="chat"),
    Pattern("suspicious-destination", re.compile(rf"(?:https?|ftp|tcp|udp|wss?)://{_PUBLIC_IP}|"
                                                 rf"\b(?:nc|ncat|netcat|telnet|socat|ssh|scp)\b[^\n]{{0,60}}?[\s@:]{_PUBLIC_IP}|"
                                                 rf"\bconnect\s*\(\s*\(\s*['\"]{_PUBLIC_IP}", _F),
            "medium", "medium", "talks to a raw public IP address", fact="dest"),
    # --- package registries -------------------------------------------------------------------------
    Pattern("registry-redirect", re.compile(r"(?:--(?:extra-)?index-url|--registry|(?-i:-i))[=\s]+[\"']?(?:https?://|\$)[^\s\"']{1,200}|"
                                            r"\b(?:PIP_(?:EXTRA_)?INDEX_URL|UV_(?:EXTRA_)?INDEX_URL|UV_DEFAULT_INDEX|"
                                            r"NPM_CONFIG_REGISTRY|YARN_REGISTRY|GOPROXY|GONOSUMDB|GOFLAGS=-insecure|"
                                            r"PIP_TRUSTED_HOST)\s*=", _F),
            "high", "medium", "installs packages from another registry"),
    Pattern("registry-redirect", re.compile(r"\b(?:npm|yarn|pnpm)\s+config\s+set\s+(?:@[\w-]+:)?registry\b|"
                                            r"\bpip[23]?\s+config\s+set\s+\S*index-url|\bgem\s+sources\s+(?:-a|--add)\b|"
                                            r"^\s*(?:@[\w-]+:)?registry\s*=\s*https?://|^\s*(?:extra-)?index-url\s*=|"
                                            r"\bpoetry\s+source\s+add\b|\bconda\s+config\s+--add\s+channels\b", _F | re.M),
            "high", "high", "changes the package registry for every later install"),
    # --- Claude Code's own settings -----------------------------------------------------------------
    Pattern("agent-settings-tamper", re.compile(r"\.claude[/\\](?:settings(?:\.local)?\.json|hooks\b|CLAUDE\.md|skills[/\\]|"
                                                r"commands[/\\]|agents[/\\])|\bmanaged-settings\.json|~/\.claude\.json\b",
                                                _F), "", "", "refers to Claude Code's own configuration", fact="settings"),
    Pattern("agent-settings-tamper", re.compile(r"[\"']?defaultMode[\"']?\s*[:=]\s*[\"']?bypassPermissions|"
                                                r"--dangerously-skip-permissions|--permission-mode\s+bypassPermissions|"
                                                r"[\"']?(?:allow|additionalDirectories)[\"']?\s*:\s*\[[^\]\n]{0,200}?"
                                                r"[\"'](?:Bash|Bash\(\*\)|Bash\(:\*\)|\*|/|~)[\"']|"
                                                r"[\"']?(?:enableAllProjectMcpServers|disableAllHooks)[\"']?\s*:\s*true|"
                                                r"\bclaude\s+config\s+set\b|\bpermissions\.allow\b[^\n]{0,60}?(?:Bash\(\*\)|Bash\(:\*\)|[\"']Bash[\"']|"
                                                r"[\"']\*[\"'])", _F),
            "critical", "high", "grants itself permissions or disables Claude Code's safeguards"),
)


PATTERNS = tuple(Pattern(p.rule, regex, p.executed, p.instructed, p.message, p.fact, RulePlan(regex))
                 for p in PATTERNS for regex in (one_line(p.regex),))
assert all(p.plan is not None for p in PATTERNS)
_PLANS = PlanIndex(p.plan for p in PATTERNS if p.plan is not None)  # in the order of PATTERNS
# A raw IP address: the lines around this anchor (inside every IPv4 address; starts with a literal, so one
# fast scan) hold every match; an IPv4 address has words of 1-3 digits (the octets between its dots).
_IPV4 = re.compile(r"\.\d{1,3}\.\d{1,3}\.\d")
_ANCHOR_BY_MESSAGE = {"talks to a raw public IP address": _IPV4}
_SHORT_NUMBERS = frozenset(str(n).encode() for n in range(1000)) | frozenset(f"{n:02d}".encode() for n in range(100)) | \
    frozenset(f"{n:03d}".encode() for n in range(1000))
_WRITE_VERB = re.compile(r">>?|\b(?:tee|cp|mv|ln|sed\s+-i|jq|write\w*|dump|json\.dump|writeFileSync|Set-Content|"
                         r"Add-Content|Out-File|echo|printf|cat\s*<<|install|add|append|insert|update|modify|edit|"
                         r"merge|patch|overwrite|replace|put|register|inject|create)\b", _F)
_CODE_WRITE = re.compile(r"\bopen\s*\([^\n)]{0,200}?['\"][wa]\+?b?['\"]|\.write(?:_text|_bytes)?\s*\(|\bjson\.dump\s*\(|"
                         r"\bwriteFileSync\s*\(|\bwriteFile\s*\(|\bSet-Content\b|\bOut-File\b|\bsed\s+-i\b|"
                         r"\bcat\s*>|>>?\s*[\"']?~?/", _F)


@dataclass
class _WritesMemo:
    text: str | None = None  # the last block asked about
    writes: bool = False


_WRITES_MEMO = _WritesMemo()


def _code_writes(text: str) -> bool:
    """Whether the block writes files (memoised per block: many references must not rescan it)."""
    if _WRITES_MEMO.text is not text:
        _WRITES_MEMO.text, _WRITES_MEMO.writes = text, bool(_CODE_WRITE.search(text))
    return _WRITES_MEMO.writes


# a variable filled from the network or from a decoder, later handed to an evaluator (same block)
_TAINT_SOURCE = re.compile(
    r"^[ \t]*(?:const\s+|let\s+|var\s+|my\s+)?\$?(\w{1,40})\s*=\s*[^\n]{0,160}?\b(?:"
    r"(urlopen|requests\.get|httpx\.get|fetch|axios\.get|urllib\.request\.\w+|DownloadString|Invoke-WebRequest|"
    r"Invoke-RestMethod|iwr|irm|curl|wget|http\.get|https\.get|URI\.open|Net::HTTP\.get|LWP::Simple::get|"
    r"HTTP::Tiny)|"
    r"(b64decode|b32decode|b85decode|unhexlify|fromhex|atob|FromBase64String|decompress|codecs\.decode|base64\s+-d|"
    r"base64\s+--decode|xxd\s+-r))\b", _F | re.M)
_TAINT_SOURCE = one_line(_TAINT_SOURCE)
_TAINT_SINK = re.compile(r"(?:\b(?:exec|eval|Function|iex|Invoke-Expression|compile|execSync|runpy\.run_path|instance_eval|"
                         r"class_eval|runInThisContext|runInNewContext|runInContext)|\[scriptblock\]::Create)\s*\(?\s*"
                         r"\$?(\w{1,40})\b(?!\s*\()|\|\s*(?:iex|Invoke-Expression)\b", _F)
_TAINT_SOURCES, _TAINT_SINKS = RulePlan(_TAINT_SOURCE), WordGate(_TAINT_SINK)


def _taint_hits(text: str, regions: list[tuple[int, int]] | None = None) -> list[Hit]:
    """`regions`: the lines holding a source needle (None: the whole text)."""
    sources: dict[str, tuple[int, str]] = {}
    spans = regions if regions is not None else [(0, len(text))]
    for match in (m for start, end in spans for m in _TAINT_SOURCE.finditer(text, start, end)):
        sources.setdefault(match.group(1), (match.start(), "download" if match.group(2) else "decode"))
    if not sources:
        return []  # a sink is reported only for a name some source filled (the sink scan reads the whole block)
    hits = []
    for match in _TAINT_SINK.finditer(text):
        name = match.group(1)
        if name in sources and sources[name][0] < match.start():
            how = sources[name][1]
            hits.append(Hit("download-exec" if how == "download" else "encoded-payload", match.start(), "critical",
                            "high", f"evaluates `{name}`, which holds " + ("downloaded code" if how == "download"
                                                                          else "decoded data"), ""))
    return hits


_CRED_LABEL = ((re.compile(r"\.ssh|id_", re.I), "SSH keys"), (re.compile(r"\.aws", re.I), "AWS credentials"),
               (re.compile(r"gcloud|application_default|\.azure|\.kube", re.I), "cloud credentials"),
               (re.compile(r"Chrome|chromium|mozilla|Brave|Login|key4|logins|Cookies", re.I), "a browser profile"),
               (re.compile(r"wallet|electrum|bitcoin|Exodus|MetaMask|Phantom|atomic", re.I), "a crypto wallet"),
               (re.compile(r"shadow", re.I), "the system password hashes"),
               (re.compile(r"_history", re.I), "shell history"),
               (re.compile(r"credentials\.json|\.claude\.json", re.I), "Claude Code's credentials"),
               (re.compile(r"Keychain|keychain|gnupg", re.I), "the keychain"))


@dataclass
class Facts:
    """What a block does, by line, for joins across lines and files (see audit.py)."""

    sends: list[tuple[int, str]] = field(default_factory=list)  # (offset, line text) of network sends
    secrets: list[tuple[int, str]] = field(default_factory=list)  # env dumps / secret vars / credential files
    staged: list[tuple[int, str, str]] = field(default_factory=list)  # (offset, path, "download"|"decode")
    executed: list[tuple[int, str]] = field(default_factory=list)  # (offset, path) of files run
    destinations: list[int] = field(default_factory=list)
    homes: list[int] = field(default_factory=list)  # offsets of paths built from the home folder (code)


def _line_around(text: str, offset: int, limit: int = 400) -> str:
    start = text.rfind("\n", max(0, offset - limit), offset) + 1 or max(0, offset - limit)
    end = text.find("\n", offset, offset + limit)
    return text[start:end if end != -1 else offset + limit]


_STAGE_DOWNLOAD = re.compile(r"\b(?:curl|wget|iwr|invoke-webrequest|aria2c)\b[^\n|;&]{0,300}?(?:\s-o\s+|\s--output[=\s]+|"
                             r"\s-O\s+|\s-OutFile\s+|\s>\s*)[\"']?([\w./~$-]{1,120})|"
                             r"\burlretrieve\s*\([^\n,]{1,200},\s*[\"']([\w./~-]{1,120})[\"']|"
                             r"\bcertutil(?:\.exe)?\s+(?:-\w+\s+){1,4}https?://\S+\s+([\w./\\~$-]{1,120})|"
                             r"\bwget\s+(?:-\w+\s+){0,3}(?:https?://)\S{0,200}/([\w.-]{1,80})(?=[\s\"']|$)|"
                             r"\b(?:curl|wget)[\"']\s*,[^\n]{0,300}?[\"']-(?:o|O|-output)[\"']\s*,\s*[\"']([\w./~$-]{1,120})[\"']|"
                             r"(?:\b(?:https?\.get|fetch|request|urlopen|requests\.get|http\.Get|URI\.open|open-uri|"
                             r"DownloadFile)\b|\.get\s*\(\s*\\?[\"']https?://)[^\n]{0,300}?(?:createWriteStream|writeFileSync|writeFile|write_bytes|"
                             r"write_text|File\.write|WriteFile|DownloadFile)\s*\(\s*(?:[^\n,()]{0,200},\s*)?\\?"
                             r"[\"']([\w./~$-]{1,120})\\?[\"']",
                             _F)
_STAGE_DECODE = re.compile(rf"{_DECODE}[^\n|;]{{0,300}}?>\s{{0,3}}[\"']?([\w./~$-]{{1,120}})|"
                           r"\bcertutil(?:\.exe)?\s+-decode\s+\S+\s+([\w./\\~$-]{1,120})", _F)
_EXEC_FILE = re.compile(rf"(?:\b(?:{_SH}|sudo|chmod\s+(?:\+x|[0-7]?7[0-7][0-7])|source|nohup|exec|Start-Process|"
                        r"powershell\s+-File|start|cmd\s+/c|subprocess\.\w+\(\s*\[?\s*['\"]|os\.system\(\s*['\"]|spawn\(\s*['\"])[ \t]+|"
                        r"(?<![\w/])\.[ \t]+|(?<![\w.])\./|(?<!&)&(?!&)[ \t]*|(?:subprocess\.\w+|os\.(?:system|chmod|exec\w{0,3}|spawn\w{0,3})|"
                        r"execFileSync|execSync|spawn|runpy\.run_path)\(\s*\[?\s*(?=[\"'])|(?:exec|eval)\(\s*open\(\s*(?=[\"']))"
                        r"[\"']?([\w./~$-]{1,120})", _F)


_STAGE_DOWNLOAD, _STAGE_DECODE = one_line(_STAGE_DOWNLOAD), one_line(_STAGE_DECODE)
_STAGE_DOWNLOADS, _STAGE_DECODES = RulePlan(_STAGE_DOWNLOAD), RulePlan(_STAGE_DECODE)


def _basename(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1].strip("\"'")


def command_hits(text: str, tokens: frozenset[bytes] | None = None, *, fast: bool = True,
                 facts: Facts | None = None, word_gates: bool = True) -> list[Hit]:
    """Command findings in one block. `tokens`: block_tokens of the block's bytes (computed when None).
    `fast=False` runs every pattern on the whole text (the reference for the property tests);
    `word_gates=False` leaves out the words derived from the regexes (audit_words): only the needles pick
    the lines searched (the reference for the word gates)."""
    if tokens is None:
        tokens = block_tokens(text.encode("utf-8", "surrogatepass"))
    hits: list[Hit] = []
    low = fold_lower(text) if fast else None
    seen: set[tuple[int, int]] = set()
    cache = needle_cache(text, low) if low is not None else None
    gate = gate_for(text, tokens, low) if low is not None else None
    words = block_words(text, tokens, low) if fast and word_gates else None
    bits = block_bits(words) if words is not None else -1  # -1: every bit, nothing ruled out
    for position in _PLANS.passing(bits):  # the others: every alternative needs a word or character the block lacks
        pattern = PATTERNS[position]
        plan = pattern.plan
        assert plan is not None
        chosen = plan.choose(bits)
        if not chosen:
            continue  # every alternative needs a word or character the block lacks
        anchor = _ANCHOR_BY_MESSAGE.get(pattern.message) if low is not None else None
        matches: Iterator[re.Match[str]]
        if anchor is not None:
            if tokens.isdisjoint(_SHORT_NUMBERS) or (words is not None and not plan.gate.possible(words)):
                continue  # an IPv4 address has words of 1-3 digits (the octets between its dots)
            matches = (m for start, end in anchor_regions(text, anchor) for m in pattern.regex.finditer(text, start, end))
        else:  # only where the words and needles of one of its alternatives are
            matches = plan.finditer(text, low, words, cache, gate, chosen)
        for match in matches:
            if (id(pattern), match.start()) in seen:
                continue
            seen.add((id(pattern), match.start()))
            hit = _judge(pattern, match, text, facts)
            if hit is not None:
                hits.append(hit)
    if _may_match(_TAINT_SINKS, words) and _may_match(_TAINT_SOURCES.gate, words):
        hits += _taint_hits(text, None if low is None or cache is None else _TAINT_SOURCES.regions(
            text, low, words, cache, gate))
    if _may_match(_SOCKETS, words) and _may_match(_SHELL_PROCESSES, words):
        hits += _socket_shell_hits(text)
    if facts is not None:
        for stage, how in ((_STAGE_DOWNLOADS, "download"), (_STAGE_DECODES, "decode")):
            if _may_match(stage.gate, words):
                for match in stage.finditer(text, low, words, cache, gate):
                    path = next(g for g in match.groups() if g)
                    facts.staged.append((match.start(), _basename(path), how))
    return hits


def _may_match(gate: WordGate, words: BlockWords | None) -> bool:
    return words is None or gate.possible(words)


_SOCKET = re.compile(r"\bsocket\.socket\s*\(|\bTCPSocket\.(?:new|open)\b|\bfsockopen\s*\(|\bnet\.(?:connect|"
                     r"createConnection|Dial)\s*\(|\bnew\s+net\.Socket\s*\(|\bsocket\s*\(\s*\w+\s*,\s*PF_INET|"
                     r"\bIO::Socket::INET\b|\bNet\.Sockets\.TCPClient\b")
_SHELL_PROCESS = re.compile(r"[\"'](?:/bin/)?(?:ba|z|da)?sh(?:\s+-i)?[\"']|[\"']cmd(?:\.exe)?[\"']|[\"']powershell(?:\.exe)?[\"']|"
                            r"\bIO\.popen\b|\bproc_open\s*\(|\bopen\s*\(\s*STDIN\s*,\s*[\"']>&")
_SOCKETS, _SHELL_PROCESSES = WordGate(_SOCKET), WordGate(_SHELL_PROCESS)


def _socket_shell_hits(text: str) -> list[Hit]:
    """A raw socket to another host and a shell process in one block: a reverse shell, whatever the language."""
    socket = _SOCKET.search(text)
    shell = _SHELL_PROCESS.search(text) if socket else None
    if not socket or not shell:
        return []
    return [Hit("reverse-shell", shell.start(), "critical", "high", "connects a shell to a network socket "
                f"({socket.group(0).strip()[:40]} … {shell.group(0)[:30]})", "")]


def executed_files(text: str, names: set[str]) -> list[tuple[int, str]]:
    """(offset, name) where a file called one of `names` is run, made executable or sourced. Searched only
    around the names' occurrences (second phase of the join, when something was staged)."""
    found = []
    for start, end in word_regions(text, text, sorted(names)):
        for match in _EXEC_FILE.finditer(text, start, end):
            name = _basename(match.group(1))
            if name in names:
                found.append((match.start(), name))
    return found


def _judge(pattern: Pattern, match: re.Match[str], text: str, facts: Facts | None) -> Hit | None:
    """Turn a match into a hit (or a fact only); some rules look at the rest of the line."""
    offset = match.start()
    if pattern.fact == "home":
        if facts is not None:
            facts.homes.append(offset)
        return None
    if pattern.fact in ("env", "send", "settings", "dest", "chat", "cred", "decode", "decode-to-file") and facts is not None:
        line = _line_around(text, offset)
        if pattern.fact == "send":
            facts.sends.append((offset, line))
        elif pattern.fact in ("env", "cred"):
            facts.secrets.append((offset, line))
        elif pattern.fact in ("dest", "chat"):
            facts.destinations.append(offset)
    if pattern.rule == "env-exfiltration":
        return None  # facts only; the join decides
    if pattern.rule == "download-exec" and "install" in pattern.message:
        found = match.group(0)
        url_at = max(found.rfind("git+"), found.rfind("http"))
        if re.search(r"(?:-i|--index-url|--extra-index-url|-f|--find-links|--trusted-host)[=\s]+$", found[:url_at], re.I):
            return None  # where packages come from (registry-redirect), not the package itself
    if pattern.rule == "agent-settings-tamper" and not pattern.executed:
        line = _line_around(text, offset)
        code_writes = _code_writes(text)
        if not _WRITE_VERB.search(line):
            if not code_writes:
                return None
            return Hit(pattern.rule, offset, "high", "low", "code that writes files refers to Claude Code's own "
                       f"configuration ({match.group(0)})", line)
        settings = re.search(r"settings(?:\.local)?\.json|hooks|CLAUDE\.md", match.group(0), re.I)
        return Hit(pattern.rule, offset, "high", "high" if settings else "medium", "writes to Claude Code's own "
                   f"configuration ({match.group(0)})", line)
    if pattern.message == "installs a cron job" and re.match(r"crontab\s+(?:-u\s+\S+\s+)?-e", match.group(0)):
        return Hit(pattern.rule, offset, pattern.executed, "medium", "opens the crontab for editing",
                   _line_around(text, offset))
    if pattern.message == "overwrites a disk device" and re.search(r"/dev/(?:sd|disk|rdisk|nvme|hd|mmcblk)(?:[A-Z]\b|<)",
                                                                    match.group(0) + text[match.end():match.end() + 2]):
        return Hit(pattern.rule, offset, pattern.executed, "medium", pattern.message + " (a placeholder device: "
                   "instructions for the user)", _line_around(text, offset))
    if pattern.rule == "credential-read" and "{what}" in pattern.message:
        found = match.group(0)
        what = next((label for regex, label in _CRED_LABEL if regex.search(found)), "a credentials file")
        line = _line_around(text, offset)
        read = _READ_VERB.search(line)
        severity = "high" if read else pattern.instructed
        if what == "shell history":
            severity = "medium" if read else "low"  # commands typed, sometimes a secret: worth a look, not an alarm
        if "ssh" in found.lower() and not re.search(r"id_|_rsa|_ed25519|_ecdsa|_dsa|\*|/\s*$", found, re.I) \
                and not read:
            severity = "low"  # ~/.ssh/config, known_hosts: not a key
        return Hit(pattern.rule, offset, pattern.executed, severity,
                   ("reads " if read else "refers to ") + f"{what} ({found.strip()[:60]})", line)
    if pattern.rule == "persistence" and "start-up file" in pattern.message:
        line = _line_around(text, offset)
        risky = re.search(r"\b(?:curl|wget|nc|ncat|base64|python[0-9.]*\s+-c|eval|nohup|bash\s+-i|/dev/tcp|"
                          r"osascript)\b|&\s*$|\bsetsid\b", line, _F)
        return Hit(pattern.rule, offset, pattern.executed, "high" if risky else pattern.instructed,
                   pattern.message + (" with a command that runs at every login" if risky else ""), line)
    if pattern.rule == "registry-redirect" and pattern.instructed == "medium":
        found = match.group(0)
        line = _line_around(text, offset)
        insecure = re.search(rf"http://|{_PUBLIC_IP}|{_PASTE_TUNNEL}|--trusted-host|\$", found + " " + line, _F)
        if re.match(r"-i\b", found) and not re.search(r"\bpip[0-9.]*\b|\buv\b", line, _F):
            return None  # -i of another tool
        if re.search(r"registry\.npmjs\.org|pypi\.org/simple|registry\.yarnpkg\.com", found, _F):
            return None
        extra = "extra" in found.lower()  # an extra index lets a same-named package win (dependency confusion)
        return Hit(pattern.rule, offset, pattern.executed, "high" if insecure else "medium" if extra else "low",
                   pattern.message + (" over an untrusted or insecure channel" if insecure else ""), line)
    return Hit(pattern.rule, offset, pattern.executed, pattern.instructed, pattern.message, _line_around(text, offset))
