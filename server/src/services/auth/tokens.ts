import { createHash, randomUUID } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';

const ISSUER = 'masivo';
const AUDIENCE = 'masivo-console';
const LIFETIME = '7d';

export interface SessionClaims {
  userId: number;
  email: string;
  /** The user's token_version when issued; a later logout or password change moves it on. */
  version: number;
  /** The organisation this session acts in, and the membership's version when issued. */
  org?: number | null;
  memberVersion?: number;
}

/** What a valid token says, plus when it stops being valid by itself. */
export interface VerifiedClaims extends SessionClaims {
  expiresAt: Date;
}

/** JWT keys are derived, so rotating APP_SECRET signs everybody out at once. */
function signingKey(appSecret: string): Uint8Array {
  return createHash('sha256').update(`jwt:${appSecret}`).digest();
}

export function createTokenService(appSecret: string) {
  const key = signingKey(appSecret);
  return {
    async issue(claims: SessionClaims): Promise<string> {
      return new SignJWT({ email: claims.email, ver: claims.version, org: claims.org ?? null, mver: claims.memberVersion ?? 0 })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(String(claims.userId))
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt()
        // Unique per sign-in: two sign-ins in the same second would otherwise get the same token,
        // and signing one of them out («Cerrar Sesión», by token hash) would end the other too.
        .setJti(randomUUID())
        .setExpirationTime(LIFETIME)
        .sign(key);
    },
    /** Null for anything that is not a valid, unexpired token of ours. */
    async verify(token: string): Promise<VerifiedClaims | null> {
      try {
        const { payload } = await jwtVerify(token, key, { issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'] });
        const userId = Number(payload.sub);
        if (!Number.isInteger(userId) || userId <= 0) return null;
        // Tokens from before versioning count as version 0, so an upgrade signs nobody out.
        const version = payload.ver === undefined ? 0 : Number(payload.ver);
        if (!Number.isInteger(version) || version < 0) return null;
        // Every token we issue carries an expiry; one without it is not ours.
        if (typeof payload.exp !== 'number') return null;
        // Tokens from before organisations carry none: they act in the user's default one.
        const org = payload.org == null ? null : Number(payload.org);
        if (org !== null && (!Number.isInteger(org) || org <= 0)) return null;
        const memberVersion = payload.mver === undefined ? 0 : Number(payload.mver);
        if (!Number.isInteger(memberVersion) || memberVersion < 0) return null;
        return { userId, email: String(payload.email ?? ''), version, org, memberVersion, expiresAt: new Date(payload.exp * 1000) };
      } catch {
        return null;
      }
    },
  };
}
export type TokenService = ReturnType<typeof createTokenService>;
