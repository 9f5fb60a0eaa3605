export const ROOT: string;
export function distIsFresh(root?: string): boolean;
export function webIsFresh(root?: string): boolean;
export function writeBuildStamp(directory: string, root?: string): void;
export function builtWithCurrentLock(directory: string, root?: string): boolean;
