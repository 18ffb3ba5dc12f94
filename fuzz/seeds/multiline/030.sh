#!/bin/bash
# hi
