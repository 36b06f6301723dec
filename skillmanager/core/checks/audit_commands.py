"""Audit rules about what commands and code do: download-and-run, decoding chains, reverse shells,
persistence, destruction, credential reads, exfiltration, suspicious destinations, registry
redirection, tampering with Claude Code's settings, resource abuse.

Each pattern is linear (bounded repeats, no nested quantifiers) and carries the lowercase words one
of which every match contains as a whole word; `command_hits` runs a pattern only when its words
occur in the block (one bytes split per block), `command_hits(..., fast=False)` runs them all and is
the reference the property tests compare against. Besides findings, the scan records facts (a file
downloaded or decoded to a path, a path executed, secrets read into a variable or file, data sent
over the network) that `audit.py` joins across lines and files.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .audit_base import (Hit, anchor_regions, block_tokens, block_words, clause_regions, fold_lower, gate_for, one_line,
                         word_regions)
from .audit_words import WordGate, top_level_alternatives

_F = re.I | re.A
def _w(text: str) -> frozenset[bytes]:
    return frozenset(t.encode() for t in text.split())


@dataclass(frozen=True)
class Pattern:
    rule: str
    regex: re.Pattern[str]
    executed: str
    instructed: str
    message: str
    words: frozenset[bytes]
    fact: str = ""  # a fact kind recorded for each match (see Facts)
    needles: tuple[str, ...] = ()  # substrings every match contains, when it has no whole word
    also: tuple[str, ...] = ()  # substrings that also let the pattern run (matches without any of `words`)
    gate: WordGate = field(default=WordGate(re.compile("")), compare=False)  # whole words its regex requires


_DL = r"(?:curl|wget|fetch|iwr|irm|invoke-webrequest|invoke-restmethod|aria2c|http)"
_DL_WORDS = "curl wget fetch iwr irm invoke aria2c http"
_SH_WORDS = ("sudo env sh bash zsh dash ksh fish csh tcsh python python2 python3 perl ruby node php pwsh powershell iex "
             "invoke bun deno source osascript")
_SH = (r"(?:sudo\s+(?:-\S+\s+){0,3})?(?:env\s+)?(?:(?:/usr)?/bin/)?(?:ba|z|da|k|fi|c|tc)?sh|python[23]?(?:\.\d{1,2})?|perl|ruby|"
       r"node|php|pwsh|powershell|iex|invoke-expression|bun|deno|source|osascript")
_DECODE = (r"\b(?:base64\s+(?:-\w+\s+){0,2}(?:-d|--decode|-D)\b|xxd\s+(?:-\w+\s+){0,2}-r|openssl\s+(?:enc\s+)?(?:-\S+\s+)"
           r"{0,4}-d\b|openssl\s+base64\s+-d|gunzip|zcat|uudecode|tr\s+['\"]?(?:a-zA-Z|A-Za-z|a-z)['\"]?\s+"
           r"['\"]?(?:n-za-mN-ZA-M|N-ZA-Mn-za-m|n-za-m)|rev(?![\w-]))")
_DECODE_WORDS = "base64 xxd openssl gunzip zcat uudecode tr rev"
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
_NET_WORDS = ("curl post put patch urllib fetch axios nc ncat netcat tcp udp invoke scp sendmail mail smtplib smtp gist "
              "nslookup dig host request net newrequest uploadstring uploadfile uploaddata uploadstringasync "
              "uploadfileasync uploaddataasync xmlhttprequest sendbeacon resolve gethostbyname dns ping push")

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
_CRED_WORDS = "ssh aws gcloud application azure kube docker netrc git pypirc gh claude etc bash zsh keychains login " \
              "wallet electrum bitcoin exodus metamask phantom atomic google chrome mozilla bravesoftware key4 logins npmrc chromium " \
              "cookies gnupg"
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
            "downloads code and pipes it to a shell or interpreter", _w(_DL_WORDS)),
    Pattern("download-exec", re.compile(rf"\b(?:{_SH}|eval|\.)\s+(?:-\S+\s+){{0,3}}[\"']?(?:<\(|\$\(|`)\s{{0,3}}{_DL}\b",
                                        _F), "critical", "high", "runs the output of a download", _w(_DL_WORDS)),
    Pattern("download-exec", re.compile(r"\b(?:iex|invoke-expression)\b[^\n]{0,300}?\b(?:downloadstring|downloaddata|"
                                        r"invoke-webrequest|iwr|irm|invoke-restmethod|net\.webclient)\b|"
                                        r"\b(?:downloadstring|irm|iwr|invoke-restmethod|invoke-webrequest)\b"
                                        r"[^\n]{0,300}?\|\s{0,3}(?:iex|invoke-expression)\b", _F),
            "critical", "high", "PowerShell download-and-invoke", _w("iex invoke downloadstring irm iwr")),
    Pattern("download-exec", re.compile(r"\b(?:exec|eval|Function|runpy\.run_path|compile)\s*\(\s*(?:await\s+)?"
                                        r"(?:requests\.get|(?:\w{1,30}\.){0,3}urlopen|httpx\.get|fetch|"
                                        r"\(?\s*await\s+fetch|axios\.get|https?\.get)\s*\(", _F),
            "critical", "high", "evaluates code fetched over the network", _w("exec eval function runpy compile")),
    Pattern("download-exec", re.compile(r"\bnpx\s+(?:-y|--yes)\b", _F), "medium", "low",
            "npx -y installs and runs a package without asking", _w("npx")),
    Pattern("download-exec", re.compile(r"\b(?:pip[23]?(?:\.\d{1,2})?|uv\s+pip|pipx)\s+install\s+"
                                        r"(?:[^\n`;|&]{0,200}?\s)?(?:git\+)?https?://\S+", _F),
            "medium", "low", "installs a package straight from a URL", _w("pip pip3 pip2 uv pipx")),
    # --- decoding chains and obfuscation ------------------------------------------------------------
    Pattern("encoded-payload", re.compile(rf"{_DECODE}[^\n|;]{{0,300}}\|\s{{0,5}}(?:{_SH})\b", _F), "critical", "high",
            "decodes data and pipes it to a shell or interpreter", _w(_DECODE_WORDS)),
    Pattern("encoded-payload", re.compile(rf"\b(?:eval|{_SH})\s+(?:-\w+\s+){{0,2}}[\"']?(?:\$\(|`)[^\n]{{0,300}}?"
                                          rf"{_DECODE}", _F), "critical", "high", "evaluates decoded data",
            _w("eval " + _SH_WORDS)),
    Pattern("encoded-payload", re.compile(r"\b(?:exec|eval|compile|Function|runpy\.run_module)\s*\(\s*(?:[\w.]{0,40}\.)?"
                                          r"(?:b64decode|b32decode|b85decode|a85decode|decodebytes|decode\s*\(|fromhex|"
                                          r"unhexlify|decompress|loads|atob|from\s*\(|urlsafe_b64decode|fromCharCode|"
                                          r"__import__\s*\(\s*['\"](?:base64|zlib|codecs|marshal))", _F),
            "critical", "high", "executes decoded or decompressed data", _w("exec eval compile function runpy")),
    Pattern("encoded-payload", re.compile(r"\b(?:powershell|pwsh)(?:\.exe)?\b[^\n]{0,200}?\s-(?:e|ec|en|enc|encodedcommand)"
                                          r"\s+[A-Za-z0-9+/=]{16,}", _F),
            "critical", "high", "PowerShell runs a base64-encoded command", _w("powershell pwsh")),
    Pattern("encoded-payload", re.compile(r"\bfrombase64string\b[^\n]{0,300}?\b(?:iex|invoke-expression|scriptblock)\b|"
                                          r"\b(?:iex|invoke-expression|scriptblock)\b[^\n]{0,300}?\bfrombase64string\b", _F),
            "critical", "high", "PowerShell decodes base64 and invokes it", _w("frombase64string iex invoke scriptblock")),
    Pattern("encoded-payload", re.compile(r"\bcodecs\.(?:decode|encode)\s*\([^\n]{0,300}?['\"]rot[_-]?13['\"]|"
                                          r"\btr\s+['\"]?(?:a-zA-Z|A-Za-z)['\"]?\s+['\"]?(?:n-za-mN-ZA-M|N-ZA-Mn-za-m)", _F),
            "medium", "medium", "rot13 obfuscation", _w("codecs tr"), fact="decode"),
    Pattern("encoded-payload", re.compile(r"\b(?:base64\s+(?:-\w+\s+){0,2}(?:-d|--decode|-D)|xxd\s+(?:-\w+\s+){0,2}-r|"
                                          r"certutil(?:\.exe)?\s+-decode)\b[^\n|]{0,300}?>\s{0,3}(\S+)", _F),
            "medium", "low", "decodes data into a file", _w("base64 xxd certutil"), fact="decode-to-file"),
    Pattern("code-execution", re.compile(r"__import__\s*\(\s*['\"](?:os|subprocess|pty|socket)['\"]\s*\)\s*\.\s*"
                                         r"(?:system|popen|call|run|spawn|Popen)|\bgetattr\s*\(\s*__builtins__|"
                                         r"\bchr\s*\(\s*\d+\s*\)\s*\+\s*chr\s*\(\s*\d+\s*\)\s*\+\s*chr", _F),
            "high", "medium", "builds and runs code in an obfuscated way", _w("import getattr chr")),
    # --- reverse shells -----------------------------------------------------------------------------
    Pattern("reverse-shell", re.compile(r"/dev/(?:tcp|udp)/[\w.$-]{1,80}/\d{1,5}|/inet/(?:tcp|udp)/\d{1,5}/[\w.$-]{1,80}/"
                                        r"\d{1,5}|\bztcp\s+[\w.$-]{1,80}\s+\d{1,5}\b", _F), "critical", "critical",
            "opens a network connection from the shell (/dev/tcp)", _w("tcp udp ztcp")),
    Pattern("reverse-shell", re.compile(r"\b(?:nc|ncat|netcat|nc\.traditional)\b[^\n|;]{0,120}?\s(?:-(?:[a-z]{0,3})[ec]|"
                                        r"--(?:sh-|lua-)?exec)[=\s]+"
                                        r"(?:/bin/|cmd|powershell|sh\b|bash\b)", _F),
            "critical", "critical", "netcat hands a shell to a remote host", _w("nc ncat netcat traditional")),
    Pattern("reverse-shell", re.compile(r"\bsocat\b[^\n]{0,200}?\b(?:exec|system):", _F), "critical", "critical",
            "socat hands a shell to a remote host", _w("socat")),
    Pattern("reverse-shell", re.compile(r"\bmkfifo\b[^\n]{0,200}?\b(?:nc|ncat|netcat|telnet|openssl\s+s_client)\b|"
                                        r"\btelnet\s+\S+\s+\d+\s*\|\s*/bin/(?:ba)?sh", _F),
            "critical", "critical", "named pipe relays a shell to a remote host", _w("mkfifo telnet")),
    Pattern("reverse-shell", re.compile(r"\bdup2\s*\(\s*\w+(?:\.fileno\(\))?\s*,\s*[012]\s*\)|\bpty\.spawn\s*\(", _F),
            "critical", "high", "wires a socket to the shell's standard streams", _w("dup2 pty")),
    Pattern("reverse-shell", re.compile(r"\bNet\.Sockets\.TCPClient\b|\bnew\s+net\.Socket\s*\([^\n]{0,200}?\bspawn\b|"
                                        r"\bspawn\s*\(\s*['\"](?:/bin/)?(?:ba)?sh['\"][^\n]{0,200}?\b(?:connect|socket)\b",
                                        _F), "critical", "high", "connects a shell to a TCP socket",
            _w("net tcpclient spawn")),
    Pattern("reverse-shell", re.compile(r"\b(?:ba)?sh\s+-i\s+[^\n]{0,20}>&", _F), "critical", "high",
            "interactive shell with redirected streams", _w("sh bash")),
    Pattern("reverse-shell", re.compile(r"\bssh\b[^\n]{0,160}?\s-R\s*[\"']?(?:[\w.*-]{0,60}:)?\d{0,5}:?(?:localhost|127\.0\.0\.1|"
                                        r"0\.0\.0\.0)?:(?:22|23|3389|5900|5901)\b|"
                                        r"\bssh\b[^\n]{0,160}?\s-R\b[^\n]{0,120}?\b(?:serveo\.net|localhost\.run|pinggy\.io)\b|"
                                        r"\bngrok\s+tcp\s+(?:22|23|3389|5900)\b|\bcloudflared\b[^\n]{0,80}?--url\s+\S*:(?:22|3389|5900)\b",
                                        _F), "critical", "high",
            "exposes this machine's login port (SSH, RDP, VNC) through a reverse tunnel", _w("ssh ngrok cloudflared")),
    # --- persistence --------------------------------------------------------------------------------
    Pattern("persistence", re.compile(r"\bNOPASSWD\s*:\s*ALL\b|(?:>>?|\btee\b(?:\s+-a)?|\bcp\b|\bmv\b)\s*[^\n|;]{0,40}?"
                                      r"/etc/sudoers(?:\.d/[\w.-]+)?\b", _F), "critical", "high",
            "grants password-less root through sudoers", _w("nopasswd etc sudoers")),
    Pattern("persistence", re.compile(r"\bchmod\s+(?:-\w+\s+){0,3}(?:[go]{0,2}u[go]{0,2}\+[rwxt]{0,3}s|(?<![ugoa])\+[rwx]{0,3}s|"
                                      r"0?[4567][0-7]{3})\s+[\"']?\S", _F), "critical", "high",
            "sets the set-uid bit (a program that runs as its owner, e.g. root, for anyone)", _w("chmod")),
    Pattern("persistence", re.compile(r"\|\s*crontab\s+(?:-u\s+\S+\s+)?-(?=\s|$|\))|\bcrontab\s+(?:-u\s+\S+\s+)?-e\b|"
                                      r"\bcrontab\s+(?:-u\s+\S+\s+)?[\w~$-]*[./$][\w./~$-]*|/etc/cron\.(?:d|daily|hourly|"
                                      r"weekly|monthly)/|/etc/crontab\b|/var/spool/cron\b|@reboot\b", _F),
            "high", "high", "installs a cron job", _w("crontab etc var reboot")),
    Pattern("persistence", re.compile(r"Library/Launch(?:Agents|Daemons)\b|\blaunchctl\s+(?:load|bootstrap|enable|submit)",
                                      _F), "high", "high", "installs a launchd agent", _w("library launchctl")),
    Pattern("persistence", re.compile(r"\.config/autostart/|/etc/xdg/autostart/", _F), "high", "high",
            "installs a desktop autostart entry", _w("config etc autostart")),
    Pattern("persistence", re.compile(r"/etc/systemd/system/|\.config/systemd/user/|/lib/systemd/system/|"
                                      r"\bsystemctl\s+(?:--user\s+)?enable\b", _F), "high", "medium",
            "installs or enables a systemd service", _w("etc config lib systemctl")),
    Pattern("persistence", re.compile(r"(?:>>?\s{0,3}|\btee\s+(?:-a\s+)?|\bopen\s*\([^\n]{0,80}?|\bappendFileSync\s*\(\s*|"
                                      r"Add-Content\s+(?:-Path\s+)?)[\"']?(?:~|\$HOME|\$\{HOME\}|/root|/home/[\w.-]{1,32}|"
                                      r"/Users/[\w.-]{1,32}|\$PROFILE|[\w.(),'\" ]{0,40})?/?"
                                      r"\.(?:bashrc|bash_profile|bash_login|zshrc|zprofile|zshenv|zlogin|profile|"
                                      r"config/fish/config\.fish)\b|\$PROFILE\b[^\n]{0,10}(?:>>|Add-Content)", _F),
            "high", "medium", "writes to a shell start-up file", _w("bashrc bash_profile bash profile bash_login zshrc "
                                                                    "zprofile zshenv zlogin config fish")),
    Pattern("persistence", re.compile(r"(?:>>|\btee\s+-a|\bopen\s*\([^\n]{0,80}?|\bappend|\bAdd-Content|cp|cat)[^\n]"
                                      r"{0,80}?\.ssh/authorized_keys\b", _F),
            "critical", "high", "adds a key to authorized_keys (a login backdoor)", _w("authorized_keys authorized")),
    Pattern("persistence", re.compile(r"\\(?:CurrentVersion\\Run(?:Once)?|Start\s+Menu\\Programs\\Startup)\b|"
                                      r"\bschtasks(?:\.exe)?\s+/create\b|\b(?:Register|New)-ScheduledTask\b|"
                                      r"\bNew-Service\b|\bsc(?:\.exe)? +create\b", _F),
            "high", "high", "registers a Windows start-up entry or scheduled task",
            _w("currentversion startup schtasks scheduledtask service sc")),
    Pattern("persistence", re.compile(r"(?:>>?|\btee\b|\bcp\b|\bln\s+-s\w*|\bwrite\w*\s*\()[^\n]{0,80}?"
                                      r"\.git/hooks/(?:pre|post)-\w+", _F), "high", "medium",
            "installs a git hook that runs on every commit", _w("git hooks")),
    # --- destruction --------------------------------------------------------------------------------
    Pattern("destructive-command", re.compile(
        r"\brm\s+(?:-{1,2}[\w-]+\s+){0,4}(?:-\w*[rR]\w*|--recursive)\s+(?:-{1,2}[\w-]+\s+){0,4}[\"']?"
        r"(?:/|/\*|~|~/|~/\*|\$HOME|\$\{HOME\}|\$HOME/\*|\*|\.\.?/?\*?|/(?:etc|usr|var|home|bin|boot|lib|opt|root|srv|"
        r"System|Users|Library|Applications)(?:/\*?)?|~/(?:\.ssh|\.config|Documents|Desktop|Library|\.claude|"
        r"projects|code|src|work)\S{0,40}|\$\{?\w{1,30}\}?/\*?|\"\$\{?\w{1,30}\}?\"/\*?)[\"']?(?=\s|$|;|&|\||`|\))", _F),
        "critical", "high", "deletes recursively from the root, the home folder or a whole tree", _w("rm")),
    Pattern("destructive-command", re.compile(r"\bfind\s+[\"']?(?:/|~/?|\$HOME/?|\$\{HOME\}/?|/home/?|/Users/?)[\"']?\s"
                                              r"[^\n|;]{0,200}?(?:\s-delete\b|\s-exec\s+rm\b)", _F),
            "critical", "high", "deletes every file found from the root or the home folder", _w("find"),
            needles=("-delete", "-exec")),
    Pattern("destructive-command", re.compile(r"\bmkfs(?:\.\w+)?\b|\bwipefs\b|\bdiskutil\s+(?:eraseDisk|zeroDisk|"
                                              r"secureErase)|\bformat\s+[A-Za-z]:(?:\s|$)|\bvssadmin\s+delete\s+shadows|"
                                              r"\bcipher\s+/w:", _F),
            "critical", "high", "formats or wipes a disk", _w("mkfs wipefs diskutil format vssadmin cipher")),
    Pattern("destructive-command", re.compile(r"\bdd\b[^\n]{0,200}?\bof=/dev/(?:sd|nvme|hd|disk|rdisk|mmcblk|xvd|vd)|"
                                              r">\s{0,3}/dev/(?:sd[a-z]|nvme\d|hd[a-z]|disk\d|rdisk\d|mmcblk\d)|"
                                              r"\bshred\b[^\n]{0,100}?(?:/dev/|~|\$HOME|/\s)", _F),
            "critical", "high", "overwrites a disk device", _w("dd dev shred")),
    Pattern("destructive-command", re.compile(r"\bshutil\.rmtree\s*\(\s*(?:os\.path\.expanduser\(\s*)?(?:['\"](?:/|~|~/)"
                                              r"['\"]|Path\.home\(\)|os\.environ\[['\"]HOME['\"]\]|['\"]C:\\\\)|"
                                              r"\bfs\.(?:rm|rmdir)(?:Sync)?\s*\(\s*(?:os\.homedir\(\)|['\"]/['\"])|"
                                              r"\bRemove-Item\b[^\n]{0,120}?(?:C:\\\\?(?:\s|['\"]|\*|$)|\$env:USERPROFILE|"
                                              r"\$HOME|~)[^\n]{0,60}?-Recurse|\bRemove-Item\b[^\n]{0,60}?-Recurse\b[^\n]{0,60}?\s[\"']?(?:C:\\(?:Users\\)?\*?|"
                                              r"\$env:USERPROFILE\S{0,3}|\$HOME\S{0,3}|~[\\/]?\*?)[\"']?(?:\s|$)|\b(?:rd|rmdir)\s+/s\s+/q\s+[A-Za-z]:\\|"
                                              r"\bdel\s+/[fsq]\s+/[fsq]\s+(?:/[fsq]\s+)?[A-Za-z]:\\", _F),
            "critical", "high", "deletes the home folder or a drive", _w("shutil fs remove rd rmdir del")),
    Pattern("destructive-command", re.compile(r"\b(?:Get-ChildItem|gci|dir|ls)\s+(?:-\w+\s+){0,3}[\"']?(?:[A-Za-z]:\\(?:Users)?"
                                              r"\\?\*?|\$env:USERPROFILE\S{0,3}|\$HOME\S{0,3}|~[\\/]?\*?|/\*?)[\"']?(?:\s|\|)[^\n]{0,200}?"
                                              r"\|[^\n]{0,200}?\b(?:Remove-Item|ri|del|rm|erase|shred)\b|"
                                              r"\bfind\s+[\"']?(?:/|~/?|\$HOME/?|\$\{HOME\}/?|/home/?|/Users/?)[\"']?\s[^\n]{0,200}?"
                                              r"-exec\s+(?:shred|wipe|srm|truncate)\b", _F),
            "critical", "high", "deletes or overwrites everything listed under the home folder, a drive or the root",
            _w("remove ri del rm erase shred")),
    Pattern("destructive-command", re.compile(r"\bchmod\s+-R\s+0?777\s+/(?:\s|$)|\bchown\s+-R\s+\S+\s+/(?:\s|$)|"
                                              r"\bgit\s+push\s+[^\n]{0,60}?(?:--force|-f)\b[^\n]{0,60}?\b(?:main|master)\b|"
                                              r"\bDROP\s+(?:DATABASE|SCHEMA)\b", _F),
            "high", "medium", "destroys permissions, history or a database", _w("chmod chown git drop")),
    # --- turning protections off --------------------------------------------------------------------
    Pattern("disables-protection", re.compile(r"\bSet-MpPreference\b[^\n]{0,120}?-Disable\w{0,40}\s+(?:\$true|1)\b|"
                                              r"\bAdd-MpPreference\b[^\n]{0,80}?-Exclusion(?:Path|Process|Extension)\b|"
                                              r"\bspctl\s+--master-disable\b|\bcsrutil\s+disable\b|\bsetenforce\s+0\b|"
                                              r"\bufw\s+disable\b|\bsystemctl\s+(?:stop|disable|mask)\s+(?:--now\s+)?(?:firewalld|"
                                              r"apparmor|auditd|ufw|clamav-daemon|falcon-sensor|osqueryd)\b|"
                                              r"\bnetsh\s+(?:adv)?firewall\s+set\s+\w+\s+state\s+off\b|"
                                              r"\bauditctl\s+-e\s+0\b|\bdefaults\s+write\s+[^\n]{0,60}?LSQuarantine\s+-bool\s+(?:NO|false)", _F),
            "critical", "high", "turns off an anti-virus, firewall or other protection",
            _w("mppreference spctl csrutil setenforce ufw systemctl netsh auditctl lsquarantine")),
    # --- resource abuse -----------------------------------------------------------------------------
    Pattern("resource-abuse", re.compile(r":\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:|\bfork\(\)[^\n]{0,40}\bwhile\s*\(?\s*(?:1|true)",
                                         _F), "critical", "high", "a fork bomb exhausts the machine", frozenset(),
            needles=(":(", "fork()")),
    Pattern("resource-abuse", re.compile(r"\b(?:xmrig|minerd|cpuminer|ethminer|nbminer|t-rex|lolminer)\b|"
                                         r"\bstratum\+(?:tcp|ssl)://", _F),
            "critical", "high", "runs a crypto-currency miner",
            _w("xmrig minerd cpuminer ethminer nbminer rex lolminer stratum")),
    # --- secrets read, data sent --------------------------------------------------------------------
    Pattern("credential-read", re.compile(_CRED_PATH, _F), "high", "medium", "refers to {what}",
            _w(_CRED_WORDS), fact="cred"),
    Pattern("credential-read", re.compile(_CRED_NAME, _F), "high", "medium", "refers to {what}", _w("id name iname"),
            fact="cred", needles=("id_", "-name", "-iname")),
    Pattern("credential-read", re.compile(r"\bsecurity\s+(?:find-generic-password|find-internet-password|"
                                          r"dump-keychain)\b|\bsecret-tool\s+lookup\b|\bcmdkey\s+/list\b|"
                                          r"\bvaultcmd\b|\bCredRead\b|\blazagne\b|\bmimikatz\b", _F),
            "high", "high", "reads the system keychain or credential store",
            _w("security secret cmdkey vaultcmd credread lazagne mimikatz"), fact="cred"),
    Pattern("credential-read", re.compile(r"(?:\b(?:cat|less|more|head|tail|source|type|strings|base64|xxd|cp)\s+"
                                          r"(?:-\S+\s+){0,3}|\bopen\(\s*['\"]|readFileSync\(\s*['\"]|read_text\(\s*|"
                                          r"Get-Content\s+)[\w./~${}-]{0,80}\.env(?:\.\w+)?(?![\w.])", _F),
            "medium", "low", "reads a .env file", _w("env"), fact="cred"),
    Pattern("env-exfiltration", re.compile(rf"(?:{_SECRET_VAR})", _F), "", "", "reads secrets from the environment",
            frozenset(), fact="env", needles=("token", "secret", "password", "passwd", "api_key", "apikey", "access_key",
                                 "accesskey", "private_key", "privatekey", "credential", "auth", "env", "export",
                                 "pbpaste", "xclip", "xsel", "wl-paste", "get-clipboard")),  # `$…TOKEN`: no whole word to prefilter on, always runs
    Pattern("env-exfiltration", re.compile(r"\bexpanduser\s*\(\s*[\"']~|\bPath\.home\s*\(|\bos\.homedir\s*\(|\bDir\.home\b|"
                                           r"\bos\.UserHomeDir\s*\(|\$env:USERPROFILE\b|\$env:HOME\b|"
                                           r"getProperty\s*\(\s*[\"']user\.home|\bFile\.expand_path\s*\(\s*[\"']~", _F), "", "",
            "reads files under the home folder", _w("expanduser home homedir userhomedir userprofile expand"),
            fact="home"),
    Pattern("env-exfiltration", re.compile(_NET_SEND, _F), "", "", "sends data over the network", _w(_NET_WORDS),
            fact="send", also=("=$", "=`", "$(")),
    # --- destinations -------------------------------------------------------------------------------
    Pattern("suspicious-destination", re.compile(rf"\b(?:{_PASTE_TUNNEL})(?![a-z0-9-])", _F), "medium", "medium",
            "uses a paste site, tunnel or request catcher", _w(
                "pastebin paste hastebin ghostbin rentry dpaste termbin transfer 0x0 file bashupload ngrok trycloudflare "
                "loca localtunnel serveo localhost pinggy webhook requestbin pipedream hookbin beeceptor interact oast "
                "burpcollaborator canarytokens ipfs anonfiles temp gofile catbox"), fact="dest"),
    Pattern("suspicious-destination", re.compile(rf"\b(?:{_CHAT_API})(?![a-z0-9-])", _F), "medium", "low",
            "talks to a chat-bot API (a common exfiltration channel)", _w("discord discordapp api hooks"), fact="chat"),
    Pattern("suspicious-destination", re.compile(rf"(?:https?|ftp|tcp|udp|wss?)://{_PUBLIC_IP}|"
                                                 rf"\b(?:nc|ncat|netcat|telnet|socat|ssh|scp)\b[^\n]{{0,60}}?[\s@:]{_PUBLIC_IP}|"
                                                 rf"\bconnect\s*\(\s*\(\s*['\"]{_PUBLIC_IP}", _F),
            "medium", "medium", "talks to a raw public IP address", frozenset(), fact="dest"),
    # --- package registries -------------------------------------------------------------------------
    Pattern("registry-redirect", re.compile(r"(?:--(?:extra-)?index-url|--registry|(?-i:-i))[=\s]+[\"']?(?:https?://|\$)[^\s\"']{1,200}|"
                                            r"\b(?:PIP_(?:EXTRA_)?INDEX_URL|UV_(?:EXTRA_)?INDEX_URL|UV_DEFAULT_INDEX|"
                                            r"NPM_CONFIG_REGISTRY|YARN_REGISTRY|GOPROXY|GONOSUMDB|GOFLAGS=-insecure|"
                                            r"PIP_TRUSTED_HOST)\s*=", _F),
            "high", "medium", "installs packages from another registry", _w(
                "extra index url registry i pip uv npm yarn goproxy gonosumdb goflags pip_trusted_host trusted host")),
    Pattern("registry-redirect", re.compile(r"\b(?:npm|yarn|pnpm)\s+config\s+set\s+(?:@[\w-]+:)?registry\b|"
                                            r"\bpip[23]?\s+config\s+set\s+\S*index-url|\bgem\s+sources\s+(?:-a|--add)\b|"
                                            r"^\s*(?:@[\w-]+:)?registry\s*=\s*https?://|^\s*(?:extra-)?index-url\s*=|"
                                            r"\bpoetry\s+source\s+add\b|\bconda\s+config\s+--add\s+channels\b", _F | re.M),
            "high", "high", "changes the package registry for every later install", _w(
                "npm yarn pnpm pip pip3 gem registry index extra poetry conda")),
    # --- Claude Code's own settings -----------------------------------------------------------------
    Pattern("agent-settings-tamper", re.compile(r"\.claude[/\\](?:settings(?:\.local)?\.json|hooks\b|CLAUDE\.md|skills[/\\]|"
                                                r"commands[/\\]|agents[/\\])|\bmanaged-settings\.json|~/\.claude\.json\b",
                                                _F), "", "", "refers to Claude Code's own configuration",
            _w("claude managed"), fact="settings"),
    Pattern("agent-settings-tamper", re.compile(r"[\"']?defaultMode[\"']?\s*[:=]\s*[\"']?bypassPermissions|"
                                                r"--dangerously-skip-permissions|--permission-mode\s+bypassPermissions|"
                                                r"[\"']?(?:allow|additionalDirectories)[\"']?\s*:\s*\[[^\]\n]{0,200}?"
                                                r"[\"'](?:Bash|Bash\(\*\)|Bash\(:\*\)|\*|/|~)[\"']|"
                                                r"[\"']?(?:enableAllProjectMcpServers|disableAllHooks)[\"']?\s*:\s*true|"
                                                r"\bclaude\s+config\s+set\b|\bpermissions\.allow\b[^\n]{0,60}?(?:Bash\(\*\)|Bash\(:\*\)|[\"']Bash[\"']|"
                                                r"[\"']\*[\"'])", _F),
            "critical", "high", "grants itself permissions or disables Claude Code's safeguards",
            _w("defaultmode bypasspermissions dangerously permission allow additionaldirectories "
               "enableallprojectmcpservers disableallhooks claude")),
)


PATTERNS = tuple(Pattern(p.rule, regex, p.executed, p.instructed, p.message, p.words, p.fact, p.needles, p.also,
                         WordGate(regex)) for p in PATTERNS for regex in (one_line(p.regex),))
_DL_NEEDLES = ("curl", "wget", "fetch", "iwr", "irm", "invoke-", "aria2c", "http")
_DECODE_NEEDLES = ("base64", "xxd", "openssl", "gunzip", "zcat", "uudecode", "n-za-m", "rev")
_IPV4 = re.compile(r"\.\d{1,3}\.\d{1,3}\.\d")  # inside every IPv4 address; starts with a literal (fast scan)
# Lowercase substrings one of which every match of the pattern contains: the pattern runs only on the
# lines holding them (rarer than the prefilter's words, so fewer lines are searched).
_NEEDLES_BY_MESSAGE = {
    "downloads code and pipes it to a shell or interpreter": _DL_NEEDLES,
    "runs the output of a download": _DL_NEEDLES,
    "PowerShell download-and-invoke": ("iex", "invoke-expression"),
    "evaluates code fetched over the network": ("exec", "eval", "function", "runpy", "compile"),
    "npx -y installs and runs a package without asking": ("npx",),
    "installs a package straight from a URL": ("install",),
    "decodes data and pipes it to a shell or interpreter": _DECODE_NEEDLES,
    "evaluates decoded data": _DECODE_NEEDLES,
    "executes decoded or decompressed data": ("exec", "eval", "compile", "function", "runpy"),
    "PowerShell runs a base64-encoded command": ("powershell", "pwsh"),
    "PowerShell decodes base64 and invokes it": ("frombase64string",),
    "rot13 obfuscation": ("rot", "n-za-m"),
    "decodes data into a file": ("base64", "xxd", "certutil"),
    "builds and runs code in an obfuscated way": ("__import__", "getattr", "chr"),
    "opens a network connection from the shell (/dev/tcp)": ("/dev/tcp/", "/dev/udp/", "/inet/tcp/", "/inet/udp/", "ztcp"),
    "netcat hands a shell to a remote host": ("nc", "netcat"),
    "socat hands a shell to a remote host": ("socat",),
    "named pipe relays a shell to a remote host": ("mkfifo", "telnet"),
    "wires a socket to the shell's standard streams": ("dup2", "pty.spawn"),
    "connects a shell to a TCP socket": ("net.sockets.tcpclient", "net.socket", "spawn"),
    "interactive shell with redirected streams": ("sh -i", "sh\t-i", ">&"),
    "installs a cron job": ("crontab", "/etc/cron", "/var/spool/cron", "@reboot"),
    "installs a launchd agent": ("library/launch", "launchctl"),
    "installs or enables a systemd service": ("systemd", "systemctl"),
    "writes to a shell start-up file": ("bashrc", "bash_profile", "bash_login", "zshrc", "zprofile", "zshenv", "zlogin",
                                        ".profile", "config.fish", "$profile"),
    "adds a key to authorized_keys (a login backdoor)": ("authorized_keys",),
    "registers a Windows start-up entry or scheduled task": ("currentversion\\run", "\\startup", "schtasks",
                                                            "scheduledtask", "new-service", "sc create", "sc.exe create"),
    "installs a git hook that runs on every commit": (".git/hooks/",),
    "deletes recursively from the root, the home folder or a whole tree": ("rm ",),
    "formats or wipes a disk": ("mkfs", "wipefs", "diskutil", "format", "vssadmin", "cipher"),
    "overwrites a disk device": ("/dev/sd", "/dev/nvme", "/dev/hd", "/dev/disk", "/dev/rdisk", "/dev/mmcblk",
                                 "/dev/xvd", "/dev/vd", "shred"),
    "deletes the home folder or a drive": ("shutil.rmtree", "fs.rm", "remove-item", "rd ", "rmdir", "del "),
    "destroys permissions, history or a database": ("chmod", "chown", "push", "drop"),
    "deletes or overwrites everything listed under the home folder, a drive or the root": ("remove-item", "ri ", "del ",
                                                                                           "rm ", "erase", "shred"),
    "exposes this machine's login port (SSH, RDP, VNC) through a reverse tunnel": ("-r", "ngrok", "cloudflared"),
    "grants password-less root through sudoers": ("nopasswd", "/etc/sudoers"),
    "sets the set-uid bit (a program that runs as its owner, e.g. root, for anyone)": ("chmod",),
    "turns off an anti-virus, firewall or other protection": ("mppreference", "spctl", "csrutil", "setenforce", "ufw",
                                                              "systemctl", "netsh", "auditctl", "lsquarantine"),
    "runs a crypto-currency miner": ("xmrig", "minerd", "cpuminer", "ethminer", "nbminer", "t-rex", "lolminer",
                                     "stratum+"),
    "refers to {what}": (".ssh", ".aws", ".npmrc", "google-chrome/", "chromium/", ".config/gcloud", "application_default_credentials", ".azure", ".kube/config",
                         ".docker/config", ".netrc", ".git-credentials", ".pypirc", ".config/gh/", ".claude/.credentials",
                         ".claude.json", "/etc/shadow", "_history", "keychains/", "login.keychain", "wallet.dat",
                         ".electrum", ".bitcoin/", "exodus/", "metamask/", "phantom/", "atomic/", "google/chrome",
                         "chrome/user", ".mozilla/firefox", "bravesoftware", "login", "key4.db", "logins.json",
                         "cookies.binarycookies", ".gnupg/"),
    "reads the system keychain or credential store": ("security", "secret-tool", "cmdkey", "vaultcmd", "credread",
                                                      "lazagne", "mimikatz"),
    "reads a .env file": (".env",),
    "reads secrets from the environment": ("token", "secret", "password", "passwd", "key", "credential", "auth", "env",
                                           "export", "environ", "pbpaste", "xclip", "xsel", "wl-paste",
                                           "get-clipboard"),
    "reads files under the home folder": ("expanduser", "path.home", "homedir", "dir.home", "userhomedir",
                                          "$env:userprofile", "$env:home", "user.home", "expand_path"),
    "sends data over the network": ("curl", "--post-", ".post", ".put", ".patch", "urllib.request.", "fetch", "axios.",
                                    "nc ", "ncat ", "netcat ", "/dev/tcp/", "/dev/udp/", "invoke-webrequest",
                                    "invoke-restmethod", "scp ", "sendmail", "mail -s", "smtplib.smtp", "$(", "=$", "=`", "gist",
                                    "nslookup", "dig", "host", "http.post", "request", "net::http", "newrequest",
                                    ".upload", "sendbeacon", "resolve-dnsname", "gethostbyname", "dns.", "ping",
                                    "push"),
    "uses a paste site, tunnel or request catcher": (
        "pastebin.com", "paste.ee", "hastebin", "ghostbin", "rentry.co", "dpaste", "termbin.com", "transfer.sh", "0x0.st",
        "file.io", "bashupload", "ngrok", "trycloudflare.com", "loca.lt", "localtunnel", "serveo.net", "localhost.run",
        "pinggy.io", "webhook.site", "requestbin", "pipedream.net", "hookbin", "beeceptor", "interact.sh", "oast.",
        "burpcollaborator", "canarytokens", "ipfs.io", "anonfiles", "temp.sh", "gofile.io", "catbox.moe"),
    "talks to a chat-bot API (a common exfiltration channel)": ("discord", "api.telegram.org", "hooks.slack.com"),
    "installs packages from another registry": ("--index-url", "--extra-index-url", "--registry", "-i", "pip_", "uv_",
                                                "npm_config_registry", "yarn_registry", "goproxy", "gonosumdb",
                                                "goflags=-insecure"),
    "changes the package registry for every later install": ("config", "gem", "registry", "index-url", "poetry"),
    "refers to Claude Code's own configuration": (".claude/", ".claude\\", "managed-settings.json", ".claude.json"),
    "grants itself permissions or disables Claude Code's safeguards": (
        "defaultmode", "dangerously-skip-permissions", "bypasspermissions", "allow", "additionaldirectories",
        "enableallprojectmcpservers", "disableallhooks", "config set", "permissions.allow"),
}
# Patterns whose every match holds a needle of each group of one clause (one clause per branch): only
# the lines holding a whole clause are searched (secret variables: 5,018 -> 492 corpus lines).
_CLAUSES_BY_MESSAGE: dict[str, tuple[tuple[tuple[str, ...], ...], ...]] = {
    "reads secrets from the environment": (
        (("$",), ("token", "secret", "password", "passwd", "key", "credential", "auth")),  # $…TOKEN
        (("env",),),  # env, printenv, os.environ, process.env, getenv(…), ENV[…], $env:…, gci env:
        (("export",), ("-p", "credential")),  # export -p, aws configure export-credentials
        (("auth",), ("token",)),  # gcloud auth print-access-token, gh auth token
        (("token",), ("account",)),  # az account get-access-token
        (("pbpaste", "xclip", "xsel", "wl-paste", "get-clipboard"),),
    ),
    "sends data over the network": (  # 2,076 -> ~250 corpus lines
        (("curl",), ("-d", "--data", "-f", "--form", "-t", "--upload-file", "-x", "--json", "-g", "-h")),
        (("--post-",),),  # wget --post-…
        ((".post", ".put", ".patch"),),  # requests/httpx/session/client/axios .post(
        (("urllib.request.",),),
        (("method", "body"), ("fetch",)),  # fetch(u, {method…
        (("fetch",), (",",), ("{",)),  # fetch(u, {⏎
        (("nc ", "ncat ", "netcat "),),
        (("/dev/tcp/", "/dev/udp/"),),
        (("invoke-webrequest", "invoke-restmethod"), ("-body", "-infile", "-method")),
        (("scp ",), ("@",)),
        (("sendmail", "smtplib.smtp"),),
        (("mail ",), ("-s",)),
        (("nslookup", "dig", "host"), ("$",)),
        (("gist",), ("create",)),
        (("http.post",),),
        (("=$", "=`"), ("http",)),  # a URL query built from a command's output
        ((".request",),),  # http(s).request(
        (("net::http",),),
        (("newrequest",),),
        ((".upload",),),
        (("xmlhttprequest", "sendbeacon"),),
        (("resolve-dnsname",), ("$",)),
        (("gethostbyname",),),
        (("dns.",),),
        (("ping",), ("-p",)),
        (("push",), ("http",)),
    ),
}
# The same needles, as the clauses of each alternative of the regex in its order (`|` at its top level):
# the word gates of the alternatives (audit_words) choose which are searched.
_CLAUSES_BY_ALTERNATIVE: dict[str, tuple[tuple[tuple[tuple[str, ...], ...], ...], ...]] = {
    "sends data over the network": (
        ((("curl",), ("-d", "--data", "-f", "--form", "-t", "--upload-file", "-x", "--json", "-g", "-h")),),
        ((("--post-",),),),
        (((".post", ".put", ".patch"),),),
        ((("urllib.request.",),),),
        ((("method", "body"), ("fetch",)),),
        (((".post", ".put"),),),  # axios
        ((("nc ", "ncat ", "netcat "),),),
        ((("/dev/tcp/", "/dev/udp/"),),),
        ((("invoke-webrequest", "invoke-restmethod"), ("-body", "-infile", "-method")),),
        ((("scp ",), ("@",)),),
        ((("sendmail", "smtplib.smtp"),), (("mail ",), ("-s",))),
        ((("nslookup", "dig", "host"), ("$",)),),
        ((("gist",), ("create",)),),
        ((("http.post",),),),
        ((("fetch",), (",",), ("{",)),),
        ((("=$", "=`"), ("http",)),),
        (((".request",),),),
        ((("net::http",),),),
        ((("newrequest",),),),
        (((".upload",),),),
        ((("xmlhttprequest",),),),
        ((("sendbeacon",),),),
        ((("resolve-dnsname",), ("$",)),),
        ((("gethostbyname",),),),
        ((("dns.",),),),
        ((("ping",), ("-p",)),),
        ((("push",), ("http",)),),
    ),
    "reads secrets from the environment": tuple((clause,) for clause in (
        (("$",), ("token", "secret", "password", "passwd", "key", "credential", "auth")),  # $…TOKEN
        (("env",),), (("printenv",),), (("export",), ("-p",)), (("os.environ",),), (("os.environ.copy",),),
        (("process.env",),), (("get-childitem",), ("env:",)), (("gci",), ("env:",)), (("dir",), ("env:",)),
        (("os.environ()",),), (("print-access-token",),), (("export-credentials",),), (("auth",), ("token",)),
        (("get-access-token",),),
        (("env",), ("token", "secret", "password", "passwd", "key", "credential")),  # a secret-named variable by name
        (("pbpaste", "xclip", "xsel", "wl-paste", "get-clipboard"),),
    )),
    "refers to {what}": tuple(((needles,),) for needles in (  # _CRED_PATH (the name-only pattern has its needles)
        (".ssh",), (".ssh",), (".aws",), (".config/gcloud",), ("application_default_credentials",), (".azure",),
        (".kube/config",), (".docker/config",), (".netrc",), (".git-credentials",), (".pypirc",), (".npmrc",),
        ("google-chrome/", "chromium/"), (".config/gh/",), (".claude/.credentials",), (".claude.json",),
        ("/etc/shadow",), ("_history",), ("keychains/",), ("login.keychain",), ("wallet.dat",), (".electrum",),
        (".bitcoin/",), ("exodus/", "metamask/", "phantom/", "atomic/"), ("google/chrome",), ("chrome/user",),
        (".mozilla/firefox",), ("bravesoftware",), ("login",), ("key4.db",), ("logins.json",),
        ("cookies.binarycookies",), (".gnupg/",))),
}
_ANCHOR_BY_MESSAGE = {"talks to a raw public IP address": _IPV4}
# each table is for the pattern of that message with as many alternatives (two patterns say "refers to {what}")
_BY_ALTERNATIVE = {id(pattern): _CLAUSES_BY_ALTERNATIVE[pattern.message] for pattern in PATTERNS
                   if len(top_level_alternatives(pattern.regex.pattern)) == len(_CLAUSES_BY_ALTERNATIVE.get(pattern.message, ()))}
assert len(_BY_ALTERNATIVE) == len(_CLAUSES_BY_ALTERNATIVE)
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
_TAINT_WORDS = _w("urlopen requests httpx fetch axios urllib downloadstring invoke iwr irm curl wget http https uri lwp "
                  "b64decode "
                  "b32decode b85decode unhexlify fromhex atob frombase64string decompress codecs base64 xxd")
_SINK_WORDS = _w("exec eval function iex invoke compile execsync runpy instance_eval class_eval runinthiscontext "
                 "runinnewcontext runincontext scriptblock")


_TAINT_NEEDLES = ("urlopen", "requests.get", "httpx.get", "fetch", "axios.get", "urllib.request.", "downloadstring",
                  "invoke-webrequest", "invoke-restmethod", "iwr", "irm", "curl", "wget", "http.get", "https.get",
                  "uri.open", "net::http.get", "lwp::simple::get", "http::tiny", "b64decode", "b32decode", "b85decode",
                  "unhexlify", "fromhex", "atob", "frombase64string", "decompress", "codecs.decode", "base64", "xxd")


def _taint_hits(text: str, regions: list[tuple[int, int]] | None = None) -> list[Hit]:
    """`regions`: the lines holding a source needle (None: the whole text)."""
    sources: dict[str, tuple[int, str]] = {}
    spans = regions if regions is not None else [(0, len(text))]
    for match in (m for start, end in spans for m in _TAINT_SOURCE.finditer(text, start, end)):
        sources.setdefault(match.group(1), (match.start(), "download" if match.group(2) else "decode"))
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


def _basename(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1].strip("\"'")


def command_hits(text: str, tokens: frozenset[bytes] | None = None, *, fast: bool = True,
                 facts: Facts | None = None, word_gates: bool = True) -> list[Hit]:
    """Command findings in one block. `tokens`: block_tokens of the block's bytes (computed when None).
    `fast=False` runs every pattern regardless of its words (the reference for the property test);
    `word_gates=False` leaves out the words derived from the regexes (audit_words; the reference for theirs)."""
    if tokens is None:
        tokens = block_tokens(text.encode("utf-8", "surrogatepass"))
    hits: list[Hit] = []
    low = fold_lower(text) if fast else None
    seen: set[tuple[int, int]] = set()
    cache: dict[str, list[tuple[int, int]]] = {}
    gate = gate_for(text, tokens, low) if low is not None else None
    words = block_words(text, tokens, low) if word_gates else None
    for pattern in PATTERNS:
        if fast and pattern.words and tokens.isdisjoint(pattern.words) and not (
                pattern.also and any(a in text for a in pattern.also)):
            continue
        if words is not None and not pattern.gate.possible(words):
            continue  # a whole word every match of the regex holds is missing
        if low is None:
            matches = pattern.regex.finditer(text)
        else:
            anchor = _ANCHOR_BY_MESSAGE.get(pattern.message)
            if anchor is not None and tokens.isdisjoint(_SHORT_NUMBERS):
                continue  # an IPv4 address has words of 1-3 digits (the octets between its dots)
            clauses = _CLAUSES_BY_MESSAGE.get(pattern.message)
            by_alternative = _BY_ALTERNATIVE.get(id(pattern))
            if by_alternative is not None and words is not None:
                # the clauses of the alternatives whose words the block holds
                clauses = tuple(clause for each, possible in zip(by_alternative, pattern.gate.possible_branches(words))
                                if possible for clause in each)
                if not clauses:
                    continue
            regions = anchor_regions(text, anchor) if anchor else clause_regions(
                text, low, clauses, cache, gate) if clauses else word_regions(
                text, low, pattern.needles or _NEEDLES_BY_MESSAGE.get(pattern.message) or
                [w.decode() for w in pattern.words & tokens] + list(pattern.also), cache, gate)
            matches = (m for start, end in regions for m in pattern.regex.finditer(text, start, end))
        for match in matches:
            if (id(pattern), match.start()) in seen:
                continue
            seen.add((id(pattern), match.start()))
            hit = _judge(pattern, match, text, facts)
            if hit is not None:
                hits.append(hit)
    if not fast or (not tokens.isdisjoint(_TAINT_WORDS) and not tokens.isdisjoint(_SINK_WORDS)):
        hits += _taint_hits(text, word_regions(text, low, _TAINT_NEEDLES, cache, gate) if low is not None else None)
    if not fast or not tokens.isdisjoint(_SOCKET_WORDS):
        hits += _socket_shell_hits(text)
    if facts is not None and (not fast or not tokens.isdisjoint(_STAGE_WORDS)):
        for regex, how, needles in ((_STAGE_DOWNLOAD, "download", _STAGE_NEEDLES), (_STAGE_DECODE, "decode", _DECODE_NEEDLES
                                                                                     + ("certutil",))):
            spans = word_regions(text, low, needles, cache, gate) if low is not None else [(0, len(text))]
            for start, end in spans:
                for match in regex.finditer(text, start, end):
                    path = next(g for g in match.groups() if g)
                    facts.staged.append((match.start(), _basename(path), how))
    return hits


_SOCKET = re.compile(r"\bsocket\.socket\s*\(|\bTCPSocket\.(?:new|open)\b|\bfsockopen\s*\(|\bnet\.(?:connect|"
                     r"createConnection|Dial)\s*\(|\bnew\s+net\.Socket\s*\(|\bsocket\s*\(\s*\w+\s*,\s*PF_INET|"
                     r"\bIO::Socket::INET\b|\bNet\.Sockets\.TCPClient\b")
_SHELL_PROCESS = re.compile(r"[\"'](?:/bin/)?(?:ba|z|da)?sh(?:\s+-i)?[\"']|[\"']cmd(?:\.exe)?[\"']|[\"']powershell(?:\.exe)?[\"']|"
                            r"\bIO\.popen\b|\bproc_open\s*\(|\bopen\s*\(\s*STDIN\s*,\s*[\"']>&")
_SOCKET_WORDS = _w("socket tcpsocket fsockopen net tcpclient")


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


_STAGE_NEEDLES = ("curl", "wget", "iwr", "invoke-webrequest", "aria2c", "urlretrieve", "certutil", "createwritestream",
                  "writefile", "write_bytes", "write_text", "file.write", "downloadfile")
_STAGE_WORDS = _w("curl wget iwr invoke aria2c urlretrieve certutil base64 xxd openssl gunzip zcat uudecode rev tr certutil "
                  "createwritestream writefilesync writefile write downloadfile")
_EXEC_WORDS = _w("sh bash zsh dash ksh fish csh tcsh python python3 python2 perl ruby node php pwsh powershell iex "
                 "invoke bun deno source osascript sudo chmod nohup exec start subprocess os spawn env")


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
