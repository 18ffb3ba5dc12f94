cat <<EOF
$'not ansi' \$(escaped)
EOF