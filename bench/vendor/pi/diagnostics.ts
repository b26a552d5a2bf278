// Copied from badlogic/pi-mono@83378aad7e74a0e2bb8f37c007a9685fb4609d8a, packages/coding-agent/src/core/diagnostics.ts (MIT License, Copyright (c) 2025 Mario Zechner: bench/vendor/pi/LICENSE).
// Unchanged but for this header.
export interface ResourceCollision {
	resourceType: "extension" | "skill" | "prompt" | "theme";
	name: string; // skill name, command/tool/flag name, prompt name, theme name
	winnerPath: string;
	loserPath: string;
	winnerSource?: string; // e.g., "npm:foo", "git:...", "local"
	loserSource?: string;
}

export interface ResourceDiagnostic {
	type: "warning" | "error" | "collision";
	message: string;
	path?: string;
	collision?: ResourceCollision;
}
