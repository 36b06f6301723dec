package main

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
)

func main() {
	q := url.Values{"q": {os.Args[1]}, "appid": {os.Getenv("OWM_API_KEY")}}
	resp, err := http.Get("https://api.openweathermap.org/data/2.5/weather?" + q.Encode())
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	fmt.Println(string(b))
}
