if (( 1 < 2 ? 1 : 2 )); then
	return 1
fi
