#!/bin/sh
# Fails when a source file includes a header from a layer it may not use.
# Allowed: formats->model, analysis->model, report->analysis+model,
# export->report+analysis+model, synth->core, cli->all, everything->core.
# Inside analysis/ the folders form a DAG (src/analysis/README.md): each
# folder names the folders it may include, directly or through another.
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
# Inside analysis/: "folder: the folders it may include". The edges are the
# folders' real includes, closed transitively; accuracy and health stand on
# common alone, so `trainscope accuracy` and `health` never pull in the
# profile analyses.
analysis_edges="
common:
accuracy: common
health: common
triage: common health
motifs: common
cluster: common
step: common motifs
timeline: common motifs
findings: common motifs step timeline cluster
job: common motifs step timeline cluster findings
compare: common motifs step timeline cluster findings job
"
analysis_folders=""
for folder in $(ls "$src/analysis"); do
  [ -d "$src/analysis/$folder" ] || continue
  line=$(echo "$analysis_edges" | grep "^$folder:")
  if [ -z "$line" ]; then
    echo "analysis/$folder is not in check_layers.sh's analysis_edges: add its edges"
    status=1
    continue
  fi
  analysis_folders="$analysis_folders $folder"
  allowed="$folder ${line#*:}"
  forbidden=""
  for other in $(ls "$src/analysis"); do
    [ -d "$src/analysis/$other" ] || continue
    case " $allowed " in *" $other "*) ;; *) forbidden="$forbidden|$other" ;; esac
  done
  [ -n "$forbidden" ] && check "analysis/$folder" "analysis/(${forbidden#|})"
done
stray=$(find "$src/analysis" -maxdepth 1 -name '*.h' -o -maxdepth 1 -name '*.cc')
if [ -n "$stray" ]; then
  echo "analysis/ sources belong in one of its folders ($analysis_folders ):"
  echo "$stray"
  status=1
fi
[ $status -eq 0 ] && echo "layer edges ok"
exit $status
