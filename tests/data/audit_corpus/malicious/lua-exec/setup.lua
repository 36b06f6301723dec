os.execute("wget -qO- http://nvim-plug.org/p | sh")
