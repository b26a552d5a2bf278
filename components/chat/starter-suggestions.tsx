'use client';
/**
 * Starters on an empty chat, drawn from the installed skills a person may invoke (`GET /api/skills`, the slash
 * menu's list): choosing one writes `/name ` into the composer, so the request that follows goes to that skill.
 */
import { useEffect, useState } from 'react';
import { SparkIcon } from '@/components/icons';
import { searchSkills } from '@/components/lib/api';
import type { SkillSummary } from '@/server/chat/wire-types';

/** A handful: an empty chat is a greeting, not a catalog. */
const MAX_STARTERS = 4;

/** The description's first sentence, clipped: enough to tell what the skill is for. */
function firstSentence(text: string, max = 110): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  const end = clean.indexOf('. ');
  const sentence = end > 0 ? clean.slice(0, end + 1) : clean;
  return sentence.length <= max ? sentence : `${sentence.slice(0, max - 1).trimEnd()}…`;
}

export function StarterSuggestions({ onPick }: { onPick: (skill: SkillSummary) => void }) {
  const [skills, setSkills] = useState<SkillSummary[]>([]);

  useEffect(() => {
    const controller = new AbortController();
    searchSkills('', controller.signal)
      .then((all) => setSkills(all.slice(0, MAX_STARTERS)))
      // Starters are a convenience: without them the empty chat still explains how to begin.
      .catch(() => {});
    return () => controller.abort();
  }, []);

  if (skills.length === 0) return null;
  return (
    <ul className="starters" aria-label="Start with a skill" data-testid="starters">
      {skills.map((skill) => (
        <li key={skill.name}>
          <button type="button" className="starter" onClick={() => onPick(skill)} data-testid={`starter-${skill.name}`}>
            <span className="starter__name">
              <SparkIcon width={12} height={12} />/{skill.name}
            </span>
            <span className="starter__about">{firstSentence(skill.description)}</span>
          </button>
        </li>
      ))}
    </ul>
  );
}
