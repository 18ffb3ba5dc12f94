cat <<$EOF
x
$EOF