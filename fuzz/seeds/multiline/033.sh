if ! command -v echo; then
  echo 'hello'
fi
