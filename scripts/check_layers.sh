#!/bin/sh
# Fails when a source file includes a header from a layer it may not use.
# Allowed: formats->model, analysis->model, report->analysis+model,
# synth->core, cli->all, everything->core.
src="${1:-$(dirname "$0")/../src}"
status=0
check() {  # layer, forbidden-regex
  hits=$(grep -rnE "#include \"($2)/" "$src/$1" 2>/dev/null)
  if [ -n "$hits" ]; then
    echo "layer violation in $1 (may not include $2):"
    echo "$hits"
    status=1
  fi
}
check core     'model|formats|analysis|report|synth|cli'
check model    'formats|analysis|report|synth|cli'
check formats  'analysis|report|synth|cli'
check analysis 'formats|report|synth|cli'
check report   'formats|synth|cli'
check synth    'model|formats|analysis|report|cli'
[ $status -eq 0 ] && echo "layer edges ok"
exit $status
