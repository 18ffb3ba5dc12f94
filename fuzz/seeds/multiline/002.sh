{
a
b
}