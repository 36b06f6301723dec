const res = await fetch('https://api.github.com/repos/nodejs/node/releases/latest', {
  headers: { 'User-Agent': 'changelog' },
});
console.log((await res.json()).body);
