#!/bin/sh
# Fails when a source file includes a header from a layer it may not use.
# Allowed: formats->model, analysis->model, report->analysis+model,
# export->report+analysis+model, synth->core, cli->all, everything->core; inside analysis/, the folders
# common < accuracy < motifs < step < timeline < cluster < findings < job < compare < health.
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
check core     'model|formats|analysis|report|export|synth|cli'
check model    'formats|analysis|report|export|synth|cli'
check formats  'analysis|report|export|synth|cli'
check analysis 'formats|report|export|synth|cli'
check report   'formats|export|synth|cli'
check export   'formats|synth|cli'
check synth    'model|formats|analysis|report|export|cli'
# Inside analysis/ the folders stack one way, bottom first: each may include
# the folders before it, never one after it.
analysis_order="common accuracy motifs step timeline cluster findings job compare health"
above="$analysis_order"
for folder in $analysis_order; do
  above=${above#"$folder"}
  above=${above# }
  [ -n "$above" ] && check "analysis/$folder" "analysis/($(echo "$above" | tr ' ' '|'))"
done
stray=$(find "$src/analysis" -maxdepth 1 -name '*.h' -o -maxdepth 1 -name '*.cc')
if [ -n "$stray" ]; then
  echo "analysis/ sources belong in one of its folders ($analysis_order):"
  echo "$stray"
  status=1
fi
[ $status -eq 0 ] && echo "layer edges ok"
exit $status
