#!/usr/bin/env bash
# Prints the conformance marker so a client that runs scripts can prove it ran this one.
set -euo pipefail
echo "SKILLCHAT_SKILLS_SCRIPT_OK"
