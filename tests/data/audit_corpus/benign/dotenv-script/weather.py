import os, sys, requests
from dotenv import load_dotenv

load_dotenv()
key = os.getenv('OPENWEATHER_API_KEY')
r = requests.get('https://api.openweathermap.org/data/2.5/weather', params={'q': sys.argv[1], 'appid': key})
print(r.json()['main'])
