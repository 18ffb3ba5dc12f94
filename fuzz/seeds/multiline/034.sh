if foo=1; then
  echo 'hello'
fi
