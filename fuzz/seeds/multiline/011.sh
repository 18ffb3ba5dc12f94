if a
then
  b
fi