cat <<-EOF
	indented
	EOF