#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Copies the node config of every overlay (deploy/overlays/NAME/config.json,
# the rdmanet-config ConfigMap it generates) to DIR/NAME.json.
set -eu
dir=${1:?usage: node-configs.sh DIR}
cd "$(dirname "$0")/../overlays"
for c in */config.json; do
	cp "$c" "$dir/${c%/config.json}.json"
done
