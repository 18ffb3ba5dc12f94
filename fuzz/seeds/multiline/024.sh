A=one

B=two
