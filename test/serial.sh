#!/bin/sh
# The backend-parametrised tests on the serial backend.
exec "$(dirname "$0")/run-backend.sh" serial
