cat <<\EOF
$(not run)
EOF