cat <<EOF
${x:-$(d)}
EOF