/** Planning the system packages' install: apt's sources as Debian 12 ships them, and the commands that follow. */
import { describe, expect, it } from 'vitest';
import {
  type AptSources,
  compareVersions,
  planAsShell,
  planSystemInstall,
  readAptSources,
  SYSTEM_COMPONENTS,
  upstreamVersion,
} from './system-packages';

const DEBIAN_SOURCES = `Types: deb
# http://snapshot.debian.org/archive/debian/20250520T000000Z
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
`;

const component = (id: string) => SYSTEM_COMPONENTS.find((c) => c.id === id) ?? expect.unreachable(id);

describe('SYSTEM_COMPONENTS', () => {
  it("installs python3-venv where python3's ensurepip is missing (without it the skills' venv cannot be made)", () => {
    expect(component('python-venv')).toMatchObject({ packages: ['python3-venv'], pythonModule: 'ensurepip, venv' });
  });
});

describe('readAptSources', () => {
  it("finds the main suite's archive in a deb822 file, not the security one", () => {
    expect(
      readAptSources([{ name: '/etc/apt/sources.list.d/debian.sources', text: DEBIAN_SOURCES }], 'bookworm'),
    ).toEqual({
      archive: 'http://deb.debian.org/debian',
      signedBy: '/usr/share/keyrings/debian-archive-keyring.gpg',
      hasBackports: false,
    });
  });

  it('reads a one-line sources.list, with options, and sees backports already listed', () => {
    const list = [
      '# deb http://old.example/debian bookworm main',
      'deb [arch=amd64] http://mirror.example/debian bookworm main contrib',
      'deb http://mirror.example/debian bookworm-backports main',
    ].join('\n');
    expect(readAptSources([{ name: '/etc/apt/sources.list', text: list }], 'bookworm')).toEqual({
      archive: 'http://mirror.example/debian',
      signedBy: null,
      hasBackports: true,
    });
  });

  it('ignores a disabled backports stanza', () => {
    const off = 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm-backports\nEnabled: no\n';
    expect(readAptSources([{ name: 'x.sources', text: off }], 'bookworm').hasBackports).toBe(false);
  });
});

describe('planSystemInstall', () => {
  const fresh: AptSources = { archive: 'http://mirror.example/debian', signedBy: '/k.gpg', hasBackports: false };

  it('on a fresh bookworm: adds backports on the same archive, then LibreOffice from it and the rest from main', () => {
    const plan = planSystemInstall(
      [component('libreoffice'), component('qpdf'), component('seccomp')],
      'bookworm',
      fresh,
    );
    expect(plan.source).toEqual({
      path: '/etc/apt/sources.list.d/bookworm-backports.sources',
      content:
        'Types: deb\nURIs: http://mirror.example/debian\nSuites: bookworm-backports\nComponents: main\nSigned-By: /k.gpg\n',
    });
    expect(plan.commands).toEqual([
      ['apt-get', 'update'],
      [
        'apt-get',
        'install',
        '-y',
        '-t',
        'bookworm-backports',
        'libreoffice-calc-nogui',
        'libreoffice-writer-nogui',
        'libreoffice-impress-nogui',
        'python3-uno',
      ],
      ['apt-get', 'install', '-y', 'qpdf', 'python3-seccomp'],
    ]);
  });

  it('adds no source when backports is listed, and none is needed for the main suite alone', () => {
    expect(
      planSystemInstall([component('libreoffice')], 'bookworm', { ...fresh, hasBackports: true }).source,
    ).toBeNull();
    expect(planSystemInstall([component('pandoc')], 'bookworm', fresh)).toEqual({
      source: null,
      commands: [
        ['apt-get', 'update'],
        ['apt-get', 'install', '-y', 'pandoc'],
      ],
    });
  });

  it('takes LibreOffice from the main suite on a release newer than bookworm', () => {
    const plan = planSystemInstall([component('libreoffice')], 'trixie', fresh);
    expect(plan.source).toBeNull();
    expect(plan.commands[1]?.slice(0, 4)).toEqual(['apt-get', 'install', '-y', 'libreoffice-calc-nogui']);
  });

  it('does nothing when nothing is missing', () => {
    expect(planSystemInstall([], 'bookworm', fresh)).toEqual({ source: null, commands: [] });
  });

  it('prints as shell lines, with sudo when not root', () => {
    const lines = planAsShell(planSystemInstall([component('libreoffice')], 'bookworm', fresh), true);
    expect(lines[0]).toBe("sudo tee /etc/apt/sources.list.d/bookworm-backports.sources >/dev/null <<'EOF'");
    expect(lines).toContain('EOF');
    expect(lines.at(-1)).toBe(
      'sudo apt-get install -y -t bookworm-backports libreoffice-calc-nogui libreoffice-writer-nogui libreoffice-impress-nogui python3-uno',
    );
  });
});

describe('versions', () => {
  it('takes the upstream part of a Debian version and compares dotted numbers', () => {
    expect(upstreamVersion('4:25.2.3-2+deb13u5~bpo12+1')).toBe('25.2.3');
    expect(upstreamVersion('2.17.1.1-2~deb12u1')).toBe('2.17.1.1');
    expect(compareVersions('7.4.7', '25.2')).toBe(-1);
    expect(compareVersions('25.2.3', '25.2')).toBe(1);
    expect(compareVersions('25.2', '25.2.0')).toBe(0);
  });
});
