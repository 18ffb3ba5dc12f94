f()
{
  a
  b
}